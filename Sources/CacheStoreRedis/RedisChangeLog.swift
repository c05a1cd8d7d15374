import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The partitions changed while tracking has been healthy, for ``RedisStore/partitionChanges(since:)``.
///
/// Every invalidation of a partition hash that the listener receives, and every commit of the store's
/// own, is recorded under a local sequence number. Anything that may lose an invalidation — tracking
/// (re)enabled, a listener or data connection lost, a flush, the log or the map of known partitions
/// overflowing — starts a new *epoch*: revisions from an earlier epoch are no longer answered, and
/// the caller re-reads everything. A revision is `(sequence, instance << 32 | epoch)`, so a revision
/// from another store instance is never taken for one of ours.
struct RedisChangeLog {
    static let maximumEntries = 100_000
    static let maximumKnown = 200_000

    private let instance = UInt64(UInt32.random(in: 1...UInt32.max))
    private var epoch: UInt64 = 1
    private var sequence: UInt64 = 0
    /// The sequence before the oldest entry kept: revisions older than this cannot be answered.
    private var floor: UInt64 = 0
    private var entries: [(sequence: UInt64, key: Data)] = []
    /// Partition hash keys this store has read or written in this epoch, with the partition they hold.
    private(set) var known: [Data: PartitionID] = [:]

    var revision: ChangeStamp { ChangeStamp(sequence, instance << 32 | (epoch & 0xffff_ffff)) }

    mutating func restart() {
        epoch &+= 1
        floor = sequence
        entries.removeAll(keepingCapacity: true)
        known.removeAll(keepingCapacity: true)
    }

    mutating func know(_ partition: RedisLayout.Partition) {
        guard known[partition.key] == nil else { return }
        if known.count >= Self.maximumKnown { restart() }
        known[partition.key] = PartitionID(accessGroup: partition.group, account: partition.account)
    }

    mutating func record(_ key: Data) {
        sequence &+= 1
        entries.append((sequence, key))
        if entries.count > Self.maximumEntries {
            let dropped = entries.count - Self.maximumEntries / 2
            floor = entries[dropped - 1].sequence
            entries.removeFirst(dropped)
        }
    }

    /// The keys changed after `revision`, or nil when it is not a revision of this epoch that the
    /// log still covers.
    func keys(since revision: ChangeStamp) -> Set<Data>? {
        let current = self.revision
        guard revision.second == current.second, revision.first >= floor, revision.first <= sequence else { return nil }
        var keys = Set<Data>()
        for entry in entries.reversed() {
            if entry.sequence <= revision.first { break }
            keys.insert(entry.key)
        }
        return keys
    }
}
