import CacheStore

extension StoreLocationError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}
