/// A store that keeps a history of which partitions were committed to, so a cache over it catches
/// up with another writer by re-reading those partitions instead of everything.
public protocol PartitionTrackingStore: ItemStore {
    /// The partitions committed to since `revision` (from an earlier answer), or, when `revision` is
    /// `nil`, the store's current revision and no partitions: take one before a full read to catch
    /// up from it later. `nil` when the store cannot tell (its history does not reach back that far,
    /// or `revision` is not one it issued): the caller then re-reads everything.
    func partitionChanges(since revision: ChangeStamp?) throws -> PartitionChanges?

    /// ``partitionChanges(since:)`` for a caller that holds only partitions it read or wrote through
    /// this store instance (a cache in partition mode): with `readOrWrittenOnly` the answer may leave
    /// out partitions the instance never read nor wrote, which a store that learns partitions' names
    /// from their keys would otherwise look up.
    func partitionChanges(since revision: ChangeStamp?, readOrWrittenOnly: Bool) throws -> PartitionChanges?
}

extension PartitionTrackingStore {
    /// Names every changed partition: the caller's holdings are among them.
    public func partitionChanges(since revision: ChangeStamp?, readOrWrittenOnly: Bool) throws -> PartitionChanges? {
        try partitionChanges(since: revision)
    }
}
