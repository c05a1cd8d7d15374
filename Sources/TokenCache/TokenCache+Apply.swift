import CacheStore
import TokenCacheSchema

extension TokenCache {
    /// Applies item operations (saves and deletes) to the store as one atomic batch, and to the
    /// index too when nothing else was committed since it was built, so writes made through the
    /// engine — entries an auth library formed itself, for one — never force a re-read of the store.
    ///
    /// In a batch of saves that names it once, an app metadata record stored as is (the same record
    /// under the same identity and generic) is not written again, as ``save(_:for:)`` leaves it: auth libraries that form their own
    /// entries, as MSAL Python does, write it with every token response, and each rewrite would move
    /// the partition every client of the cloud shares. That is decided under the store's write lock,
    /// on what the store holds then; the result does not count such a record.
    ///
    /// - Throws: the store's errors; the store is then unchanged.
    @discardableResult
    public func apply(_ operations: [StoreOperation]) throws -> BatchResult {
        guard !operations.isEmpty else { return BatchResult() }
        // Only in a batch of saves where no other save names the record: a delete or a second save
        // of it in the same batch must still meet it as the batch has it.
        guard operations.contains(where: { Self.appMetadataRecord($0) != nil }),
            operations.allSatisfy({ if case .save = $0 { true } else { false } })
        else { return try commit(operations) }
        var saves: [ItemIdentity: Int] = [:]
        for case .save(let item) in operations { saves[item.identity, default: 0] += 1 }
        return try commitPlannedBatch(keepingLookupKeys: true) { index in
            (operations.filter { operation in
                guard case .save(let item) = operation, let metadata = Self.appMetadataRecord(operation),
                    saves[item.identity] == 1
                else { return true }
                return !index.stores(metadata, as: item)
            }, ())
        }.batch
    }

    /// The app metadata record an operation saves, when it saves one that decodes.
    private static func appMetadataRecord(_ operation: StoreOperation) -> AppMetadata? {
        guard case .save(let item) = operation, item.type == ItemTypeCode.appMetadata else { return nil }
        return try? AppMetadata(storeItem: item)
    }
}
