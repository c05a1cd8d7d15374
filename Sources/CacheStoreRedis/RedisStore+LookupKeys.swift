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
            }
            let replies = try state.router.runEach(requests, operation: "read lookup-key index")
            var found: [PartitionID] = []
            for (index, group) in groups.enumerated() {
                guard case .integer(let exists) = replies[2 * index] else {
                    throw .unexpectedReply(endpoint: configuration.endpoint.description, operation: "EXISTS lookup-keys complete",
                                           got: replies[2 * index].typeName)
                }
                guard exists == 1 else { return nil }
                switch replies[2 * index + 1] {
                case .null: continue
                case .string(let data):
                    // A field that is not the index's JSON is treated as absent: the index may only
                    // ever add candidates the reader checks, so nothing is lost by ignoring it.
                    for account in RedisLookupKeys.decode(data) ?? [] {
                        found.append(PartitionID(accessGroup: group, account: account))
                    }
                default:
                    throw .unexpectedReply(endpoint: configuration.endpoint.description, operation: "HGET lookup key",
                                           got: replies[2 * index + 1].typeName)
                }
            }
            return Array(Set(found)).sorted()
        }
    }

    /// The index edits a partition's change needs: one script call per key added or removed.
    func lookupEdits(_ change: Change, partition: RedisLayout.Partition) -> (add: [(key: Data, command: [Data])], remove: [(key: Data, command: [Data])]) {
        let before = Set(change.before.lookupKeys)
        let after = Set(change.after.lookupKeys)
        func edit(_ key: String, _ operation: String) -> (key: Data, command: [Data]) {
            let bucket = layout.lookupBucketKey(group: partition.group, lookupKey: key)
            return (bucket, [Data("EVAL".utf8), Data(RedisLookupKeys.editScript.utf8), Data("1".utf8), bucket,
                             Data(key.utf8), Data(partition.account.utf8), Data(operation.utf8)])
        }
        return (after.subtracting(before).sorted().map { edit($0, "+") }, before.subtracting(after).sorted().map { edit($0, "-") })
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
