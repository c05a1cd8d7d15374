import CacheStore

/// Reads of the items of some types (``TypeSelectingStore``): a whole read, filtered; for the
/// memory store that is a copy of references, not a read of payloads.
extension MemoryStore: TypeSelectingStore {
    public func items(ofTypes types: [ItemQuery.TypeMatch]) throws -> [StoreItem] {
        if types.isEmpty { return [] }
        return try allItems().filter { item in types.contains { $0.matches(item.type) } }
    }
}
