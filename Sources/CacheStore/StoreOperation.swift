/// One step of an atomic batch given to ``ItemStore/apply(_:)``.
public enum StoreOperation: Sendable, Hashable {
    /// Saves the item: replaces `generic` and `data` of the item with the same identity, or adds it.
    case save(StoreItem)
    /// Deletes every item the query matches (within the store's access groups).
    case delete(ItemQuery)
}

/// What an applied batch did.
public struct BatchResult: Sendable, Hashable {
    /// Items that did not exist before and were added.
    public var added: Int
    /// Items that existed and whose `generic` and `data` were replaced.
    public var replaced: Int
    /// Items removed by the batch's deletes.
    public var deleted: Int

    public init(added: Int = 0, replaced: Int = 0, deleted: Int = 0) {
        self.added = added
        self.replaced = replaced
        self.deleted = deleted
    }
}
