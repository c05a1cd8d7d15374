import CacheStore

extension SecretServiceError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .libraryUnavailable, .noSessionBus, .sessionBusUnreachable, .serviceUnavailable, .operationFailed: .unavailable
        // The store cannot be opened where it was asked for; the collection is the store's location.
        case .collectionNotFound: .unavailable
        case .collectionLocked, .promptDismissed: .permission
        case .corruptPartition: .damaged
        case .batchPartiallyApplied: .internal
        }
    }
}
