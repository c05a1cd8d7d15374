/// A store that keeps records about partitions besides their items — revisions, a group index, a
/// lookup-key index — and can prune those of partitions that no longer exist (emptied, or expired
/// in Redis). See ``PrunedRecords`` for what each backend prunes.
///
/// Pruning never makes a change go unnoticed: a caller holding a revision from before a prune that
/// removed a partition's revision is answered `nil` by `partitionChanges(since:)` (read everything
/// again), so a partition removed, pruned and made again never looks unchanged to it.
public protocol PartitionPruningStore: ItemStore {
    /// Removes, in the open access groups, the records of partitions that hold no items; returns
    /// how many of each kind. Safe to run while other processes read and write.
    func pruneRemovedPartitions() throws -> PrunedRecords
}

/// What a prune removed.
public struct PrunedRecords: Sendable, Hashable {
    /// Per-partition records of partitions that no longer exist: SQLite's `partitions` rows (revision
    /// tombstones), Redis group-index members, the memory store's revisions.
    public var partitions: Int
    /// Lookup-key index entries naming partitions that no longer exist.
    public var lookupKeys: Int

    public init(partitions: Int = 0, lookupKeys: Int = 0) {
        self.partitions = partitions
        self.lookupKeys = lookupKeys
    }
}
