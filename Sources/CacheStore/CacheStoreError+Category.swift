extension CacheStoreError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .accessGroupNotAllowed: .permission
        case .noAccessGroups, .invalidItem: .badInput
        }
    }
}
