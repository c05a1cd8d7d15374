import CacheStore

/// Why the store a process should use could not be worked out: a specification or setting that
/// cannot be understood, or no place for the default store. Says nothing of how the value was given
/// (a flag, a variable); the caller adds that.
public enum StoreLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A store specification (``StoreSpecification/forms``) that cannot be understood.
    case invalidSpecification(String, reason: String)
    /// Neither `XDG_DATA_HOME` nor `HOME` is an absolute path, so the default store has no place.
    case noDefaultLocation
    /// `TOKENCACHE_KEY` names no known key source.
    case invalidKeyPolicy(String)

    public var description: String {
        switch self {
        case .invalidSpecification(let specification, let reason):
            return "cannot use store '\(specification)': \(reason)"
        case .noDefaultLocation:
            return "cannot use the default store: neither XDG_DATA_HOME nor HOME is an absolute path"
        case .invalidKeyPolicy(let text):
            return "cannot use TOKENCACHE_KEY=\(text): known key sources are "
                + KeyPolicy.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }
}

extension StoreLocationError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}
