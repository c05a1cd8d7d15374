import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The lookup-key index (see ``StoreOperation/setLookupKeys(_:keys:)``): a partition's keys are its
/// `.keys` field, written in the partition's own transaction; the per-group index hashes map each
/// key to the partitions carrying it.
///
/// On a standalone server the index edits run inside the partition's `MULTI`/`EXEC`, so the index
/// always equals the partitions' `.keys`. In a cluster the index hashes live in other slots: keys a
/// commit adds are indexed *before* it and keys it removes are dropped *after* it, so the index is
/// always a superset of the truth — it can name a partition that no longer carries the key (after a
/// failure between the two steps, or a partition that expired), never miss one. Readers check what
/// they find, as the contract asks.
extension RedisStore: LookupKeyIndexingStore {
    public var keepsLookupKeys: Bool { true }

    public func partitions(withLookupKey key: String) throws -> [PartitionID]? {
        let groups = accessGroups.all
        return try state.withLock { state throws(RedisError) -> [PartitionID]? in
            var requests: [(key: Data, command: [Data])] = []
            for group in groups {
                let complete = layout.lookupCompleteKey(group)
                let bucket = layout.lookupBucketKey(group: group, lookupKey: key)
                requests.append((complete, [Data("EXISTS".utf8), complete]))
                requests.append((bucket, [Data("HGET".utf8), bucket, Data(key.utf8)]))
                if state.legacyLookupGroups.contains(group) {
                    // Written before the index was sharded: its legacy bucket is read too.
                    let legacy = layout.legacyLookupBucketKey(group: group, lookupKey: key)
                    requests.append((legacy, [Data("HGET".utf8), legacy, Data(key.utf8)]))
                }
            }
            let replies = try state.router.runEach(requests, operation: "read lookup-key index")
            var found: [PartitionID] = []
            var position = 0
            for group in groups {
                guard case .integer(let exists) = replies[position] else {
                    throw .unexpectedReply(endpoint: configuration.endpoint.description, operation: "EXISTS lookup-keys complete",
                                           got: replies[position].typeName)
                }
                guard exists == 1 else { return nil }
                let buckets = state.legacyLookupGroups.contains(group) ? 2 : 1
                for reply in replies[(position + 1)...(position + buckets)] {
                    switch reply {
                    case .null: continue
                    case .string(let data):
                        // A field that is not the index's JSON is treated as absent: the index may only
                        // ever add candidates the reader checks, so nothing is lost by ignoring it.
                        for account in RedisLookupKeys.decode(data) ?? [] {
                            found.append(PartitionID(accessGroup: group, account: account))
                        }
                    default:
                        throw .unexpectedReply(endpoint: configuration.endpoint.description, operation: "HGET lookup key", got: reply.typeName)
                    }
                }
                position += 1 + buckets
            }
            return Array(Set(found)).sorted()
        }
    }

    /// The index edits a partition's change needs: one script call per key added; per key removed,
    /// one for its bucket and one for its legacy bucket (which is never added to).
    func lookupEdits(_ change: Change, partition: RedisLayout.Partition) -> (add: [(key: Data, command: [Data])], remove: [(key: Data, command: [Data])]) {
        let before = Set(change.before.lookupKeys)
        let after = Set(change.after.lookupKeys)
        func edit(_ bucket: Data, _ key: String, _ operation: String) -> (key: Data, command: [Data]) {
            (bucket, [Data("EVAL".utf8), Data(RedisLookupKeys.editScript.utf8), Data("1".utf8), bucket,
                      Data(key.utf8), Data(partition.account.utf8), Data(operation.utf8)])
        }
        let added = after.subtracting(before).sorted().map { edit(layout.lookupBucketKey(group: partition.group, lookupKey: $0), $0, "+") }
        let removed = before.subtracting(after).sorted().flatMap { key in
            [edit(layout.lookupBucketKey(group: partition.group, lookupKey: key), key, "-"),
             edit(layout.legacyLookupBucketKey(group: partition.group, lookupKey: key), key, "-")]
        }
        return (added, removed)
    }

    /// Marks the groups' indexes complete (after the batch's partitions are committed).
    func declareComplete(_ groups: [String], _ state: inout State) throws {
        guard !groups.isEmpty else { return }
        let requests = groups.map { group in
            (key: layout.lookupCompleteKey(group), command: [Data("SET".utf8), layout.lookupCompleteKey(group), Data("1".utf8)])
        }
        for reply in try state.router.runEach(requests, operation: "SET lookup-keys complete") {
            if case .error(let message) = reply {
                throw RedisError.server(endpoint: configuration.endpoint.description, operation: "SET lookup-keys complete", message: message)
            }
        }
    }
}
