import CacheStore

/// Why a Redis store operation failed. Never carries an item's payload or a password.
public enum RedisError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Nothing listens at the address (connection refused, or no such unix socket).
    case refused(endpoint: String, reason: String)
    /// The server could not be reached (host unknown, network unreachable, …).
    case unreachable(endpoint: String, reason: String)
    /// Connecting, or waiting for a reply, took longer than the configured timeout.
    case timedOut(endpoint: String, operation: String, milliseconds: Int)
    /// The connection broke (server stopped, restarted or closed it) while a command was in flight.
    case connectionLost(endpoint: String, operation: String, reason: String)
    /// The server refused the credentials (`AUTH`), or the database (`SELECT`).
    case authenticationFailed(endpoint: String, reason: String)
    /// The server answered a command with an error reply.
    case server(endpoint: String, operation: String, message: String)
    /// The server answered with a reply of a type the command cannot return.
    case unexpectedReply(endpoint: String, operation: String, got: String)
    /// The cluster cannot serve the key's slot now (`CLUSTERDOWN`, a master without a replica down,
    /// or redirections that do not settle).
    case clusterUnavailable(endpoint: String, reason: String)
    /// A commit was written on the master, but fewer replicas than the store spec's `wait=N`
    /// confirmed it in time: it is visible now and may or may not survive a failover.
    case notReplicated(endpoint: String, acknowledged: Int, required: Int)
    /// A batch that spans partitions failed after some partitions were committed: those stay
    /// committed, the others are unchanged. Running the same batch again converges.
    case partiallyApplied(committedPartitions: Int, of: Int, cause: String)
    /// The data key the store spec names cannot be had (variable unset, key file unusable).
    case keyUnavailable(source: String, reason: String)
    /// A `redis://` or `redis+unix://` store spec cannot be understood (shown with its password hidden).
    case invalidSpecification(String, reason: String)
    /// A stored record cannot be read (written by a newer tokencache, or damaged).
    case corruptRecord(key: String, reason: String)

    public var description: String {
        switch self {
        case .refused(let endpoint, let reason):
            return "Redis at \(endpoint) refused the connection (\(reason)): is redis-server running there?"
        case .unreachable(let endpoint, let reason):
            return "Redis at \(endpoint) cannot be reached: \(reason)"
        case .timedOut(let endpoint, let operation, let milliseconds):
            return "Redis at \(endpoint) did not answer \(operation) within \(milliseconds) ms "
                + "(raise connect_timeout / timeout in the store spec if the server is slow)"
        case .connectionLost(let endpoint, let operation, let reason):
            return "the connection to Redis at \(endpoint) broke during \(operation) (\(reason)); the next call reconnects"
        case .authenticationFailed(let endpoint, let reason):
            return "Redis at \(endpoint) refused the login: \(reason) "
                + "(give the password in the spec or TOKENCACHE_REDIS_PASSWORD)"
        case .server(let endpoint, let operation, let message):
            return "Redis at \(endpoint) answered \(operation) with an error: \(message)"
        case .unexpectedReply(let endpoint, let operation, let got):
            return "Redis at \(endpoint) answered \(operation) with \(got), which that command cannot return"
        case .clusterUnavailable(let endpoint, let reason):
            return "the Redis Cluster (via \(endpoint)) cannot serve the request: \(reason)"
        case .notReplicated(let endpoint, let acknowledged, let required):
            return "the write was committed on the Redis master at \(endpoint), but only \(acknowledged) of the \(required) "
                + "replicas wait=\(required) asks for confirmed it within the timeout: it may or may not survive a failover"
        case .partiallyApplied(let committed, let total, let cause):
            return "the batch was applied to \(committed) of its \(total) partitions before failing (\(cause)); "
                + "those partitions are committed, the rest unchanged; running it again completes it"
        case .keyUnavailable(let source, let reason):
            return "the data key of the Redis store (key=\(source)) cannot be used: \(reason)"
        case .invalidSpecification(let spec, let reason):
            return "cannot use store '\(spec)': \(reason)"
        case .corruptRecord(let key, let reason):
            return "the Redis record \(key) cannot be read: \(reason)"
        }
    }

    /// Whether the failure is one of reaching the server (the connection should be dropped).
    var isConnectionFailure: Bool {
        switch self {
        case .refused, .unreachable, .timedOut, .connectionLost: return true
        default: return false
        }
    }
}

extension RedisError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .refused, .unreachable, .timedOut, .connectionLost, .clusterUnavailable, .notReplicated, .keyUnavailable: .unavailable
        case .authenticationFailed: .permission
        case .server, .unexpectedReply, .partiallyApplied: .internal
        case .invalidSpecification: .badInput
        case .corruptRecord: .damaged
        }
    }

    public var remedy: String? {
        switch self {
        case .refused, .unreachable, .connectionLost, .timedOut:
            "check that the Redis server runs and is reachable at that address (hiredis 0.14 has no TLS: use a TLS proxy on loopback)"
        case .clusterUnavailable: "wait for the cluster to cover every slot again"
        case .notReplicated: "check the master's replicas (INFO replication); saving again writes the same data"
        case .partiallyApplied: "run the same batch again: it converges"
        case .authenticationFailed: "give the right user and password (in the store specification or TOKENCACHE_REDIS_PASSWORD)"
        default: nil
        }
    }
}
