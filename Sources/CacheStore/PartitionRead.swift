/// One partition's items — those sharing an access group and an `account` attribute, what one
/// account touches — and a revision to revalidate a copy of them by.
public struct PartitionRead: Sendable, Hashable {
    /// The items, in the order they were first added.
    public var items: [StoreItem]
    /// Changes whenever the partition may have changed. Backends that keep a revision per partition
    /// report it; others report the whole store's ``ChangeStamp`` (taken before the read), which
    /// also changes on writes to other partitions.
    public var revision: ChangeStamp

    public init(items: [StoreItem], revision: ChangeStamp) {
        self.items = items
        self.revision = revision
    }
}

extension ItemStore {
    /// The default partition read: the store's change stamp, then a query naming group and account.
    public func readPartition(accessGroup: String, account: String) throws -> PartitionRead {
        let stamp = try changeStamp()
        return PartitionRead(items: try items(matching: ItemQuery(accessGroup: accessGroup, account: account)), revision: stamp)
    }

    /// The default batched read: one ``readPartition(accessGroup:account:)`` per partition, in order.
    public func readPartitions(_ partitions: [PartitionID]) throws -> [PartitionRead] {
        try partitions.map { try readPartition(accessGroup: $0.accessGroup, account: $0.account) }
    }
}
