import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Pruning the group-index members and lookup-key index entries of partitions that no longer
/// exist (expired with `lifetime=`, or left behind by a failure), on a standalone server; from the
/// shards and from the legacy index alike, whose other entries are then moved into the shards.
///
/// Each removal is a `MULTI`/`EXEC` run only if the partition's key, `WATCH`ed, still does not
/// exist: a writer that makes the partition again lists it in its group and indexes its keys in
/// the transaction that writes it, so either that transaction comes first (the key exists and
/// nothing is removed, or `EXEC` writes nothing) or it comes after and puts the entry back.
/// Partition revisions live inside the partition's hash and go with it, so a prune changes no
/// revision and no change stamp.
///
/// In a cluster nothing is pruned: the index keys and the partitions live in different slots, so
/// no transaction can check one and edit the other, and a writer's entries are made before its
/// partition exists; removing them then could hide a partition from full reads or a username lookup.
extension RedisStore: PartitionPruningStore {
    public func pruneRemovedPartitions() throws -> PrunedRecords {
        try state.withLock { state throws -> PrunedRecords in
            _ = try state.router.masters()
            guard state.router.isCluster == false else { return PrunedRecords() }
            var pruned = PrunedRecords()
            for group in accessGroups.all {
                let ids = try partitionIDs(groups: [group], &state).map(\.id)
                for id in try gone(ids.map { layout.partitionKey(id: $0) }, &state).map({ ids[$0] }) {
                    let partition = RedisLayout.Partition(group: group, account: "", id: id, key: layout.partitionKey(id: id))
                    if try removeWhileGone(partition.key, unlistCommands(partition), &state) { pruned.partitions += 1 }
                }
                pruned.lookupKeys += try pruneLookupKeys(group, &state)
                try moveLegacyIndex(group, &state)
            }
            return pruned
        }
    }

    /// Removes the lookup-key index entries of `group` naming partitions that do not exist.
    private func pruneLookupKeys(_ group: String, _ state: inout State) throws -> Int {
        let buckets = layout.lookupBucketKeys(group: group)
        let replies = try state.router.runEach(buckets.map { ($0, [Data("HGETALL".utf8), $0]) }, operation: "read lookup-key index")
        var entries: [(bucket: Data, key: Data, account: String)] = []
        for (bucket, reply) in zip(buckets, replies) {
            guard case .array(let flat) = reply else { continue }  // another type: not the index's, left alone
            for index in stride(from: 0, to: flat.count - 1, by: 2) {
                guard case .string(let key) = flat[index], case .string(let value) = flat[index + 1] else { continue }
                for account in RedisLookupKeys.decode(value) ?? [] { entries.append((bucket, key, account)) }
            }
        }
        var removed = 0
        for position in try gone(entries.map { layout.partition(group: group, account: $0.account).key }, &state) {
            let entry = entries[position]
            let edit = [Data("EVAL".utf8), Data(RedisLookupKeys.editScript.utf8), Data("1".utf8), entry.bucket,
                        entry.key, Data(entry.account.utf8), Data("-".utf8)]
            if try removeWhileGone(layout.partition(group: group, account: entry.account).key, [edit], &state) { removed += 1 }
        }
        return removed
    }

    /// The positions of `keys` that do not exist (one pipeline).
    private func gone(_ keys: [Data], _ state: inout State) throws -> [Int] {
        guard !keys.isEmpty else { return [] }
        let replies = try state.router.runEach(keys.map { ($0, [Data("EXISTS".utf8), $0]) }, operation: "EXISTS partition")
        return replies.indices.filter { replies[$0] == .integer(0) }
    }

    /// Runs `commands` in a transaction only while `partition` does not exist (checked under `WATCH`);
    /// whether they ran and one removed something (a reply of 1).
    private func removeWhileGone(_ partition: Data, _ commands: [[Data]], _ state: inout State) throws -> Bool {
        let check = try state.router.run([[Data("WATCH".utf8), partition], [Data("EXISTS".utf8), partition]], key: partition, operation: "WATCH partition")
        guard check.last == .integer(0) else {
            _ = try state.router.run([Data("UNWATCH".utf8)], key: partition, operation: "UNWATCH")
            return false
        }
        let replies = try state.router.run([[Data("MULTI".utf8)]] + commands + [[Data("EXEC".utf8)]], key: partition, operation: "prune removed partition")
        try checkReplies(Array(replies.dropLast()), operation: "prune removed partition")
        guard case .array(let results) = replies.last! else { return false }  // null: the partition was written meanwhile
        try checkReplies(results, operation: "prune removed partition")
        return results.contains(.integer(1))
    }
}
