/// Errors every backend reports in the same words.
///
/// Backend-specific failures (a SQLite error code, a D-Bus error) are thrown as the backend's own
/// error type, whose description says what happened and where. No error ever carries an item's `data`.
public enum CacheStoreError: Error, Sendable, CustomStringConvertible {
    /// The item or query names an access group the store was not opened for.
    case accessGroupNotAllowed(String, allowed: [String])
    /// The store was opened with no access group at all.
    case noAccessGroups
    /// An item that cannot be stored, e.g. a `data` over the backend's limit; `reason` says which.
    case invalidItem(reason: String)

    public var description: String {
        switch self {
        case .accessGroupNotAllowed(let group, let allowed):
            let list = allowed.map { "'\($0)'" }.joined(separator: ", ")
            return "access group '\(group)' is not one this store was opened for (\(list))"
        case .noAccessGroups:
            return "a store must be opened for at least one access group"
        case .invalidItem(let reason):
            return "invalid item: \(reason)"
        }
    }
}

extension CacheStoreError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .accessGroupNotAllowed: .permission
        case .noAccessGroups, .invalidItem: .badInput
        }
    }
}
