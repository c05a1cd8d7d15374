@_spi(Pause) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends commands to the node serving each key: the one server of a standalone Redis, or the master
/// owning the key's slot in a Redis Cluster (slot map from `CLUSTER SLOTS`, `MOVED` and `ASK`
/// followed). The same configuration works against both: the first call finds out which it is.
///
/// Not thread-safe: the store calls it under its lock.
final class RedisRouter: @unchecked Sendable {
    typealias Endpoint = RedisConfiguration.Endpoint

    let configuration: RedisConfiguration
    private let password: String?
    /// `nil` until the first successful discovery.
    private(set) var isCluster: Bool?
    private var slots: [Endpoint?] = []
    private var slotMapStale = true
    /// Changes whenever the slot map or the kind of server does: what a cached verdict on the
    /// masters (e.g. tracking's health) must be checked against.
    private(set) var mapVersion: UInt64 = 0
    private var connections: [Endpoint: RedisConnection] = [:]
    /// Called on every new connection (after login), e.g. to turn tracking on; a throw drops it.
    var onConnect: ((Endpoint, RedisConnection) throws(RedisError) -> Void)?
    /// Called when a connection is dropped after an error.
    var onDrop: ((Endpoint) -> Void)?

    init(configuration: RedisConfiguration, password: String?) {
        self.configuration = configuration
        self.password = password
    }

    /// Whether the next call asks the server what it is, or re-reads the slot map, first.
    var needsDiscovery: Bool { isCluster != false && slotMapStale }

    /// The masters serving the keyspace: the one server, or every master in the slot map.
    func masters() throws(RedisError) -> [Endpoint] {
        try discoverIfNeeded()
        guard isCluster == true else { return [configuration.endpoint] }
        var seen: [Endpoint] = []
        for case let endpoint? in slots where !seen.contains(endpoint) { seen.append(endpoint) }
        return seen
    }

    /// A live connection to `endpoint`, made (and logged in) if needed.
    func connection(_ endpoint: Endpoint) throws(RedisError) -> RedisConnection {
        if let existing = connections[endpoint], !existing.isBroken { return existing }
        connections[endpoint] = nil
        let connection = try RedisConnection(
            endpoint, connectTimeoutMilliseconds: configuration.connectTimeoutMilliseconds,
            commandTimeoutMilliseconds: configuration.commandTimeoutMilliseconds,
            username: configuration.username, password: password,
            database: isCluster == true ? 0 : configuration.database)
        do throws(RedisError) {
            try onConnect?(endpoint, connection)
        } catch {
            throw error
        }
        connections[endpoint] = connection
        return connection
    }

    /// Forgets every connection (they close), e.g. after a fault.
    func dropAll() {
        for endpoint in connections.keys { onDrop?(endpoint) }
        connections.removeAll()
        slotMapStale = true
    }

    /// Runs `commands`, which all address `key`'s slot, as one pipeline on the node serving it.
    /// Every round trip, redirections included, shares one deadline: `deadline`, else the command
    /// timeout from the first.
    func run(_ commands: [[Data]], key: Data, operation: String, deadline: Int64? = nil) throws(RedisError) -> [RedisValue] {
        try discoverIfNeeded()
        var deadline = deadline
        let slot = ClusterSlot.of(key)
        var target = isCluster == true ? (slots[slot] ?? configuration.endpoint) : configuration.endpoint
        var asking = false
        for attempt in 0..<8 {
            let connection = try connectionOrDrop(target)
            if deadline == nil { deadline = connection.deadlineFromNow }
            var replies: [RedisValue]
            do throws(RedisError) {
                replies = try connection.pipeline(
                    asking ? [[Data("ASKING".utf8)]] + commands : commands, operation: operation, deadline: deadline)
            } catch {
                drop(target)
                throw error
            }
            if asking { replies.removeFirst() }
            asking = false
            guard let redirect = replies.lazy.compactMap(Self.redirection).first else { return replies }
            switch redirect {
            case .moved(let movedSlot, let endpoint):
                if movedSlot < slots.count { slots[movedSlot] = endpoint }
                mapVersion &+= 1
                slotMapStale = true
                target = endpoint
            case .ask(let endpoint):
                target = endpoint
                asking = true
            case .tryAgain:
                pauseThread(for: .milliseconds(20) * (attempt + 1))
            case .down(let message):
                slotMapStale = true
                throw .clusterUnavailable(endpoint: configuration.endpoint.description, reason: message)
            }
        }
        throw .clusterUnavailable(endpoint: configuration.endpoint.description, reason: "redirections for slot \(slot) did not settle")
    }

    /// Runs one command on `key`'s node.
    func run(_ arguments: [Data], key: Data, operation: String) throws(RedisError) -> RedisValue {
        try run([arguments], key: key, operation: operation)[0]
    }

    /// Runs commands that each address their own key, pipelined per node (in chunks), in order of
    /// the requests; a reply redirected meanwhile is run again on its own. Each pipeline of a
    /// chunk has its own deadline: a large read takes as many as it has chunks.
    func runEach(_ requests: [(key: Data, command: [Data])], operation: String) throws(RedisError) -> [RedisValue] {
        try discoverIfNeeded()
        var replies = [RedisValue](repeating: .null, count: requests.count)
        var byNode: [Endpoint: [Int]] = [:]
        var order: [Endpoint] = []
        for (index, request) in requests.enumerated() {
            let target = isCluster == true ? (slots[ClusterSlot.of(request.key)] ?? configuration.endpoint) : configuration.endpoint
            if byNode[target] == nil { order.append(target) }
            byNode[target, default: []].append(index)
        }
        for endpoint in order {
            let indices = byNode[endpoint]!
            for start in stride(from: 0, to: indices.count, by: 1000) {
                let chunk = indices[start..<min(indices.count, start + 1000)]
                let connection = try connectionOrDrop(endpoint)
                let chunkReplies: [RedisValue]
                do throws(RedisError) {
                    chunkReplies = try connection.pipeline(chunk.map { requests[$0].command }, operation: operation)
                } catch {
                    drop(endpoint)
                    throw error
                }
                for (index, reply) in zip(chunk, chunkReplies) {
                    if Self.redirection(reply) != nil {
                        replies[index] = try run(requests[index].command, key: requests[index].key, operation: operation)
                    } else {
                        replies[index] = reply
                    }
                }
            }
        }
        return replies
    }

    private func connectionOrDrop(_ endpoint: Endpoint) throws(RedisError) -> RedisConnection {
        do throws(RedisError) {
            return try connection(endpoint)
        } catch {
            if isCluster == true { slotMapStale = true }
            throw error
        }
    }

    private func drop(_ endpoint: Endpoint) {
        connections[endpoint] = nil
        onDrop?(endpoint)
        if isCluster == true { slotMapStale = true }
    }

    // MARK: - Discovery

    /// Finds out whether the server is a cluster, and reads the slot map when it is (again when stale).
    private func discoverIfNeeded() throws(RedisError) {
        guard isCluster != false, slotMapStale else { return }
        var candidates = [configuration.endpoint]
        for case let endpoint? in slots where !candidates.contains(endpoint) { candidates.append(endpoint) }
        var lastError: RedisError?
        for endpoint in candidates {
            do throws(RedisError) {
                let connection = try connection(endpoint)
                let reply: RedisValue
                do throws(RedisError) {
                    reply = try connection.command(["CLUSTER", "SLOTS"])
                } catch {
                    drop(endpoint)
                    throw error
                }
                if case .error(let message) = reply {
                    if message.contains("cluster support disabled") {
                        isCluster = false
                        slotMapStale = false
                        mapVersion &+= 1
                        return
                    }
                    throw RedisError.server(endpoint: endpoint.description, operation: "CLUSTER SLOTS", message: message)
                }
                slots = try Self.slotMap(reply, asked: endpoint)
                isCluster = true
                slotMapStale = false
                mapVersion &+= 1
                return
            } catch {
                lastError = error
            }
        }
        // With a map already known, carry on with it: the node that owns the slot may still answer.
        if isCluster == true, !slots.isEmpty { return }
        throw lastError ?? .clusterUnavailable(endpoint: configuration.endpoint.description, reason: "no node answered")
    }

    /// Parses `CLUSTER SLOTS`: `[[start, end, [host, port, id], replicas…], …]`.
    static func slotMap(_ reply: RedisValue, asked: Endpoint) throws(RedisError) -> [Endpoint?] {
        guard case .array(let ranges) = reply else {
            throw .unexpectedReply(endpoint: asked.description, operation: "CLUSTER SLOTS", got: reply.typeName)
        }
        var slots = [Endpoint?](repeating: nil, count: ClusterSlot.count)
        for range in ranges {
            guard case .array(let fields) = range, fields.count >= 3,
                case .integer(let start) = fields[0], case .integer(let end) = fields[1],
                case .array(let master) = fields[2], master.count >= 2, case .integer(let port) = master[1],
                start >= 0, end < ClusterSlot.count, start <= end
            else {
                throw .unexpectedReply(endpoint: asked.description, operation: "CLUSTER SLOTS", got: "a malformed slot range")
            }
            var host = master[0].text ?? ""
            if host.isEmpty || host == "?" {
                if case .tcp(let askedHost, _) = asked { host = askedHost } else { host = "127.0.0.1" }
            }
            let endpoint = Endpoint.tcp(host: host, port: Int(port))
            for slot in Int(start)...Int(end) { slots[slot] = endpoint }
        }
        return slots
    }

    private enum Redirection {
        case moved(Int, Endpoint)
        case ask(Endpoint)
        case tryAgain
        case down(String)
    }

    private static func redirection(_ reply: RedisValue) -> Redirection? {
        guard case .error(let message) = reply else { return nil }
        let words = message.split(separator: " ")
        switch words.first {
        case "MOVED", "ASK":
            guard words.count >= 3, let slot = Int(words[1]), let endpoint = parseAddress(String(words[2])) else { return nil }
            return words[0] == "MOVED" ? .moved(slot, endpoint) : .ask(endpoint)
        case "TRYAGAIN": return .tryAgain
        case "CLUSTERDOWN": return .down(message)
        default: return nil
        }
    }

    /// `host:port` (the host may hold colons: IPv6).
    static func parseAddress(_ text: String) -> Endpoint? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return .tcp(host: host.isEmpty ? "127.0.0.1" : host, port: port)
    }
}
