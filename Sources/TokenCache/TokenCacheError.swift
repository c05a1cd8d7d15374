import CacheStore

/// Why the engine could not do what was asked. Messages never contain a token.
public enum TokenCacheError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The request (authority, client id, scopes, account) cannot be used; the text says why.
    case invalidRequest(String)
    /// The token response lacks what the cache needs, or has a malformed part; the text names the field.
    case invalidTokenResponse(String)

    public var description: String {
        switch self {
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .invalidTokenResponse(let reason): return "invalid token response: \(reason)"
        }
    }
}

extension TokenCacheError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}
