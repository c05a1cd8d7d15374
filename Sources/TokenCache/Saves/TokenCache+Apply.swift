import CacheStore
import TokenCacheSchema

extension TokenCache {
    /// Applies item operations (saves and deletes) to the store as one atomic batch, and to the
    /// index too when nothing else was committed since it was built, so writes made through the
    /// engine — entries an auth library formed itself, for one — never force a re-read of the store.
    ///
    /// In a batch of saves that names it once, an app metadata record stored as is (the same record
    /// under the same identity and generic) is not written again, as ``save(_:for:)`` leaves it
    /// (see `CacheIndex.stores(_:as:)`): auth libraries that form their own entries, as MSAL Python
    /// does, write it with every token response. That is decided under the store's write lock, on
    /// what the store holds then; the result does not count such a record.
    ///
    /// - Throws: the store's errors; the store is then unchanged.
    @discardableResult
    public func apply(_ operations: [StoreOperation]) throws -> BatchResult {
        guard !operations.isEmpty else { return BatchResult() }
        // The records that may be left out, decoded once: none when the batch deletes anything or
        // saves the record twice, since those operations must meet it as the batch has it.
        var records: [(position: Int, item: StoreItem, metadata: AppMetadata)] = []
        for (position, operation) in operations.enumerated() {
            guard case .save(let item) = operation else { return try commit(operations) }
            guard item.type == ItemTypeCode.appMetadata, let metadata = try? AppMetadata(storeItem: item) else { continue }
            records.append((position, item, metadata))
        }
        records.removeAll { record in
            operations.count { if case .save(let item) = $0 { item.identity == record.item.identity } else { false } } > 1
        }
        guard !records.isEmpty else { return try commit(operations) }
        return try commitPlannedBatch(keepingLookupKeys: true) { index in
            let stored = Set(records.filter { index.stores($0.metadata, as: $0.item) }.map(\.position))
            return (operations.enumerated().filter { !stored.contains($0.offset) }.map(\.element), ())
        }.batch
    }
}
