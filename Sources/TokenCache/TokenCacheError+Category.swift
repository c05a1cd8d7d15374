import CacheStore

extension TokenCacheError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}
