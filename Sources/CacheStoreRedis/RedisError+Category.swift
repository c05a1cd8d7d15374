import CacheStore

extension RedisError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .refused, .unreachable, .timedOut, .connectionLost, .clusterUnavailable, .keyUnavailable: .unavailable
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
        case .partiallyApplied: "run the same batch again: it converges"
        case .authenticationFailed: "give the right user and password (in the store specification or TOKENCACHE_REDIS_PASSWORD)"
        default: nil
        }
    }
}
