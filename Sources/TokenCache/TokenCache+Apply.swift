import CacheStore

extension TokenCache {
    /// Applies item operations (saves and deletes) to the store as one atomic batch, and to the
    /// index too when nothing else was committed since it was built, so writes made through the
    /// engine — entries an auth library formed itself, for one — never force a re-read of the store.
    ///
    /// - Throws: the store's errors; the store is then unchanged.
    @discardableResult
    public func apply(_ operations: [StoreOperation]) throws -> BatchResult {
        guard !operations.isEmpty else { return BatchResult() }
        return try commit(operations)
    }
}
