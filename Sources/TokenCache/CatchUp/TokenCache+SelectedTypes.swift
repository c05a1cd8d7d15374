import CacheStore

extension TokenCache {
    /// Runs `body` on an index for a call over every account that looks only at items of `types`.
    ///
    /// In whole-store mode that is the engine's index, which holds everything anyway. In partition
    /// mode the index holds only the partitions lookups touched, so each such call reads the store:
    /// only the items of `types` where the store can select them (``TypeSelectingStore``: SQLite,
    /// memory), in the store's order, so that `body` answers as on a whole read; the whole store
    /// otherwise (the Secret Service and Redis keep items by partition, not by type).
    ///
    /// Items are selected by their type attribute, as the keychain libraries query them: a
    /// credential whose payload names another kind than its type code is not read for a kind
    /// it is not stored as.
    func withIndex<R>(ofTypes types: @autoclosure () -> [ItemQuery.TypeMatch], _ body: (CacheIndex) throws -> R) throws -> R {
        guard case .partitions = configuration.loading, let selecting = store as? any TypeSelectingStore else {
            return try withIndex(body)
        }
        return try body(CacheIndex(items: try selecting.items(ofTypes: types())))
    }
}
