import CacheStore

// The conformance suite runs every backend through the same tests; a backend without a capability
// answers as a store that has none would (no history, no lookup-key index).
extension ItemStore {
    func partitionChanges(since revision: ChangeStamp?) throws -> PartitionChanges? {
        try (self as? any PartitionTrackingStore)?.partitionChanges(since: revision)
    }

    func partitions(withLookupKey key: String) throws -> [PartitionID]? {
        try lookupKeyIndex?.partitions(withLookupKey: key)
    }

    var keepsLookupKeys: Bool { lookupKeyIndex != nil }
}
