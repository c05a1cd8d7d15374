/// Names one partition: the items of one access group sharing one `account` attribute — what one
/// account touches (see ``ItemStore/readPartition(accessGroup:account:)``).
public struct PartitionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var accessGroup: String
    public var account: String

    public init(accessGroup: String, account: String) {
        self.accessGroup = accessGroup
        self.account = account
    }

    /// The query matching every item of the partition.
    public var query: ItemQuery { ItemQuery(accessGroup: accessGroup, account: account) }

    public static func < (lhs: PartitionID, rhs: PartitionID) -> Bool {
        (lhs.accessGroup, lhs.account) < (rhs.accessGroup, rhs.account)
    }

    public var description: String { "\(accessGroup)/\(account)" }
}

extension StoreItem {
    /// The partition this item belongs to.
    public var partition: PartitionID { PartitionID(accessGroup: accessGroup, account: account) }
}
