/// One step of an atomic batch given to ``ItemStore/apply(_:)``.
public enum StoreOperation: Sendable, Hashable {
    /// Saves the item: replaces `generic` and `data` of the item with the same identity, or adds it.
    case save(StoreItem)
    /// Deletes every item the query matches (within the store's access groups).
    case delete(ItemQuery)
    /// Replaces the lookup keys of a partition with `keys` (none removes them): opaque strings the
    /// partition can be found by with ``ItemStore/partitions(withLookupKey:)``. The engine sets one
    /// per username a partition's accounts hold. Keys stay when the partition's items are deleted;
    /// readers of the index check what they find.
    case setLookupKeys(PartitionID, keys: [String])
    /// Declares that every partition of `accessGroup` has its lookup keys set, so the store may
    /// answer ``ItemStore/partitions(withLookupKey:)`` for that group from its index. A writer that
    /// sets keys in every batch it writes sends this after indexing a store written before the index
    /// existed.
    case declareLookupKeysComplete(accessGroup: String)
}

/// What an applied batch did.
public struct BatchResult: Sendable, Hashable {
    /// Items that did not exist before and were added.
    public var added: Int
    /// Items that existed and whose `generic` and `data` were replaced.
    public var replaced: Int
    /// Items removed by the batch's deletes.
    public var deleted: Int
    /// The store's change stamps around the commit, read atomically with it; `nil` for an empty batch.
    public var commit: CommitStamps?

    public init(added: Int = 0, replaced: Int = 0, deleted: Int = 0, commit: CommitStamps? = nil) {
        self.added = added
        self.replaced = replaced
        self.deleted = deleted
        self.commit = commit
    }
}

/// The change stamps of the store just before and just after a batch was committed.
///
/// No other commit happened between the two: a cache whose content corresponds to ``base`` can apply
/// the batch itself and know it then corresponds to ``result``, instead of re-reading the store.
public struct CommitStamps: Sendable, Hashable {
    public let base: ChangeStamp
    public let result: ChangeStamp

    public init(base: ChangeStamp, result: ChangeStamp) {
        self.base = base
        self.result = result
    }
}
