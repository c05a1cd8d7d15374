/// A store that can read the items of some types without reading the others: what a call over every
/// account that needs only some kinds of item reads instead of the whole store (a listing of accounts
/// needs the account records, not the tokens that outnumber them ten to one).
///
/// SQLite answers from its `(access_group, type)` index, so rows of other types are neither read
/// nor opened; memory filters its items. A store that is not one (Secret Service, Redis: items
/// are kept by partition, not by type) is read whole instead.
public protocol TypeSelectingStore: ItemStore {
    /// Every item of the open access groups whose type is one of `types`
    /// (``ItemQuery/TypeMatch/absent`` for the items that have none), in the order they were first
    /// added — the order of a whole read, without the other items. One consistent read; damaged
    /// items are skipped, as by every read, but counted only by whole reads
    /// (``DamageReportingStore/damagedItemCount()``).
    func items(ofTypes types: [ItemQuery.TypeMatch]) throws -> [StoreItem]
}

extension ItemQuery.TypeMatch {
    /// Whether an item with this `type` attribute is of this type.
    @inlinable
    public func matches(_ type: UInt32?) -> Bool {
        switch self {
        case .code(let code): type == code
        case .absent: type == nil
        }
    }
}
