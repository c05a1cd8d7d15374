import CacheStore
import TokenCacheSchema

extension CacheIndex {
    /// The key-carrying items (account records, legacy ADAL entries) the index holds of
    /// `partition`, each with the lookup key it gives (see ``LookupKey``). Needs the partition map
    /// (``ensurePartitionMembers()``).
    func keyedContent(of partition: PartitionID) -> [ItemIdentity: String?] {
        var content: [ItemIdentity: String?] = [:]
        for key in partitionMembers?.members[partition] ?? [] {
            guard let stored = entries[key], LookupKey.mayCarryKey(type: key.identity.type) else { continue }
            switch stored.entry {
            case .account(let account):
                content[key.identity] = account.username.flatMap { $0.isEmpty ? nil : LookupKey.username($0) }
            case .legacyToken(let token):
                content[key.identity] = token.userId.isEmpty ? nil : LookupKey.username(token.userId)
            default:
                content[key.identity] = .some(nil)
            }
        }
        return content
    }

    /// The partitions holding an item `query` matches.
    func partitions(matching query: ItemQuery) -> [PartitionID] {
        Array(Set(entries.lazy.filter { query.matches($0.value.attributes($0.key)) }.map(\.key.identity.partition)))
    }

    /// `batch` with the lookup keys of every partition whose account records or legacy entries it
    /// changes, as they will be after it (see ``LookupKey/appendingKeys(to:current:partitions:)``).
    mutating func withLookupKeys(_ batch: [StoreOperation]) -> [StoreOperation] {
        ensurePartitionMembers()
        let index = self
        return LookupKey.appendingKeys(
            to: batch, current: { index.keyedContent(of: $0) }, partitions: { index.partitions(matching: $0) })
    }

    /// Every partition's lookup keys, for a store whose index was never built.
    mutating func allLookupKeys() -> [StoreOperation] {
        ensurePartitionMembers()
        var operations: [StoreOperation] = []
        for partition in partitionMembers!.members.keys.sorted() {
            let keys = Set(keyedContent(of: partition).values.compactMap { $0 })
            if !keys.isEmpty { operations.append(.setLookupKeys(partition, keys: keys.sorted())) }
        }
        return operations
    }
}

extension TokenCache {
    /// Whether a batch must carry lookup keys: the store keeps them and the batch changes an item
    /// that gives its partition one.
    func needsLookupKeys(_ batch: [StoreOperation]) -> Bool {
        store.lookupKeyIndex != nil && batch.contains(where: LookupKey.changesKeys)
    }

    /// Builds the store's lookup-key index when it keeps one but has none it can vouch for (a store
    /// written before the index existed, or by writers that do not set keys): every partition's keys
    /// and the groups declared complete, in one batch planned under the store's write lock, so a
    /// concurrent writer's keys are not lost. A failure only means it is tried after the next read.
    func backfillLookupKeysIfNeeded() {
        guard let keys = store.lookupKeyIndex, (try? keys.partitions(withLookupKey: LookupKey.username(""))) == .some(nil) else { return }
        _ = try? commitPlanned(keepingLookupKeys: false) { index in
            var index = index
            let groups = store.accessGroups.all.map { StoreOperation.declareLookupKeysComplete(accessGroup: $0) }
            return (index.allLookupKeys() + groups, ())
        }
    }

    /// The backfill of partition loading mode, whose index never holds every partition: planned on
    /// a read of the whole store under its write lock. Run after a username lookup had to scan.
    func backfillLookupKeysOverWholeStore() {
        guard store.lookupKeyIndex != nil else { return }
        _ = try? store.applyPlanned { _, allItems in
            var index = CacheIndex(items: try allItems())
            return index.allLookupKeys() + store.accessGroups.all.map { StoreOperation.declareLookupKeysComplete(accessGroup: $0) }
        }
    }
}
