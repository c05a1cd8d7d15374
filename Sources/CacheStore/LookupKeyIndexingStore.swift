/// A store that keeps an index of lookup keys (see ``StoreOperation/setLookupKeys(_:keys:)``), so a
/// cache finds the partitions of a username without reading every partition.
public protocol LookupKeyIndexingStore: ItemStore {
    /// Whether this store keeps the lookup-key index now (a store may be opened without it). When it
    /// does but ``partitions(withLookupKey:)`` answers `nil`, the index has yet to be built for a
    /// group written before it existed: a writer that knows every partition's keys sets them and
    /// declares the group complete.
    var keepsLookupKeys: Bool { get }

    /// The partitions whose lookup keys include `key`, in the store's access groups; `nil` when the
    /// store keeps no index it can vouch for in every open group (see
    /// ``StoreOperation/declareLookupKeysComplete(accessGroup:)``): the caller then scans.
    func partitions(withLookupKey key: String) throws -> [PartitionID]?
}

extension ItemStore {
    /// This store's lookup-key index, when it keeps one; `nil` otherwise (lookup-key operations are
    /// then ignored by the store, and callers scan).
    public var lookupKeyIndex: (any LookupKeyIndexingStore)? {
        guard let store = self as? any LookupKeyIndexingStore, store.keepsLookupKeys else { return nil }
        return store
    }
}
