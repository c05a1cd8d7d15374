/// The partitions committed to since an earlier revision of a store: what a cache holding copies of
/// partitions re-reads to catch up, instead of re-reading the whole store.
///
/// Returned by ``ItemStore/partitionChanges(since:)``.
public struct PartitionChanges: Sendable, Hashable {
    /// The store's revision as of this answer, taken before the caller re-reads the partitions:
    /// pass it to the next call. Opaque; meaningful only to the store that issued it.
    public var revision: ChangeStamp
    /// Every partition of the store's access groups with a commit after the revision asked about
    /// (saves, replacements and deletions alike), in no particular order. May name a partition that
    /// no longer holds any item.
    public var partitions: [PartitionID]

    public init(revision: ChangeStamp, partitions: [PartitionID]) {
        self.revision = revision
        self.partitions = partitions
    }
}
