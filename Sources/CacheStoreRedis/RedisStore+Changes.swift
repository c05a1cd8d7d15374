import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RedisStore: PartitionTrackingStore, DamageReportingStore {
    /// The partitions changed since `revision`, from the invalidations tracking pushed to this
    /// process and its own commits (``RedisChangeLog``); no round trip unless another process changed
    /// a partition this store has not read (its group and account are then read, one pipeline).
    ///
    /// `nil` without tracking, while it is unhealthy, or for a revision from before tracking was last
    /// interrupted: changes may have gone unreported then. A change made by another process is
    /// reported once its invalidation has arrived (typically well under a millisecond on loopback).
    public func partitionChanges(since revision: ChangeStamp?) throws -> PartitionChanges? {
        try partitionChanges(since: revision, readOrWrittenOnly: false)
    }

    /// With `readOrWrittenOnly`, never a round trip: a partition this store has not read or written
    /// in the current epoch (every read, from the server or from tracking's copies, and every commit
    /// makes it known) is left out instead of looked up.
    public func partitionChanges(since revision: ChangeStamp?, readOrWrittenOnly: Bool) throws -> PartitionChanges? {
        guard let tracking else { return nil }
        return try state.withLock { state throws -> PartitionChanges? in
            guard try healthy(&state) else { return nil }
            let (current, keys, known) = tracking.shared.withLock { shared in
                (shared.changes.revision, revision.map { shared.changes.keys(since: $0) }, shared.changes.known)
            }
            guard let asked = keys else { return PartitionChanges(revision: current, partitions: []) }
            guard let changed = asked else { return nil }
            var partitions: [PartitionID] = []
            var unknown: [Data] = []
            for key in changed {
                if let partition = known[key] { partitions.append(partition) } else { unknown.append(key) }
            }
            if !unknown.isEmpty && !readOrWrittenOnly {
                let replies = try state.router.runEach(
                    unknown.map { ($0, [Data("HMGET".utf8), $0, RedisLayout.groupField, RedisLayout.accountField]) },
                    operation: "HMGET partition attributes")
                for (key, reply) in zip(unknown, replies) {
                    guard case .array(let values) = reply, values.count == 2,
                          case .string(let group) = values[0], case .string(let account) = values[1] else { continue }
                    // A hash gone meanwhile was never read by this store in this epoch: no copy to drop.
                    let partition = layout.partition(group: String(decoding: group, as: UTF8.self), account: String(decoding: account, as: UTF8.self))
                    guard partition.key == key, accessGroups.contains(partition.group) else { continue }
                    // Known from now on: the caller may read it, and its deletion must be named too.
                    tracking.know(partition)
                    partitions.append(PartitionID(accessGroup: partition.group, account: partition.account))
                }
            }
            return PartitionChanges(revision: current, partitions: partitions.sorted())
        }
    }

    // MARK: - Damaged items

    public func damagedItemCount() -> Int {
        state.withLock { $0.damagedInLastFullRead }
    }

    public func damagedItems() throws -> [DamagedItem] {
        try state.withLock { state throws in
            try readPartitions(groups: accessGroups.all, &state).flatMap { $0.1.damaged.values }
        }
    }

    /// Removes every damaged item, partition by partition: each partition's removal is one
    /// transaction checked against the partition as read under `WATCH` (so an item rewritten
    /// meanwhile is not removed); a failure part way leaves the partitions not yet reached as they are.
    public func removeDamagedItems() throws -> Int {
        try state.withLock { state throws in
            var removed = 0
            for (partition, _) in try readPartitions(groups: accessGroups.all, &state) {
                for _ in 0..<100 {
                    let current = try readPartition(partition, watching: true, &state, attributesFromHash: partition.id.isEmpty)
                    guard !current.damaged.isEmpty else {
                        _ = try state.router.run([Data("UNWATCH".utf8)], key: partition.key, operation: "UNWATCH")
                        break
                    }
                    let standalone = state.router.isCluster == false
                    var commands: [[Data]] = [[Data("MULTI".utf8)]]
                    if current.wrongType {
                        commands.append([Data("DEL".utf8), partition.key])  // not a hash: nothing in it can be kept
                        if standalone { commands += unlistCommands(partition) }
                    } else {
                        let change = Change(deletes: Array(current.damaged.keys), before: current, after: current)
                        let revision = change.revision(expected: current.revision)
                        commands += changeCommands(change, partition: partition, revision: revision, standalone: standalone)
                    }
                    commands.append([Data("INCR".utf8), layout.revisionKey])
                    commands.append([Data("EXEC".utf8)])
                    if standalone {
                        let replies = try state.router.run(commands, key: partition.key, operation: "remove damaged items")
                        guard try execResult(replies, storeRevision: true) != nil else { continue }
                    } else {
                        commands.remove(at: commands.count - 2)
                        let replies = try state.router.run(commands, key: partition.key, operation: "remove damaged items")
                        guard try execResult(replies, storeRevision: false) != nil else { continue }
                        _ = try state.router.run([Data("INCR".utf8), layout.revisionKey], key: layout.revisionKey, operation: "INCR revision")
                    }
                    removed += current.damaged.count
                    tracking?.shared.withLock { $0.partitions[partition.key] = nil; $0.cachedRevision = nil }
                    tracking?.recordCommit(partition)
                    break
                }
            }
            state.damagedInLastFullRead = 0
            return removed
        }
    }
}
