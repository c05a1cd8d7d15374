#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keychain-equivalent item store: the contract every backend keeps.
///
/// - Identity is `(accessGroup, account, service, type)`; saving an existing identity replaces its
///   `generic` and `data` and keeps its `created` date.
/// - A query matches the attributes it names, exactly; ``items(matching:)`` returns every match.
/// - ``apply(_:)`` runs a batch of saves and deletes atomically: afterwards either all of it is
///   visible, to this process and every other, or none of it.
/// - The store serves only the ``accessGroups`` it was opened for; naming any other group throws
///   ``CacheStoreError/accessGroupNotAllowed(_:allowed:)``.
///
/// Implementations are safe to call from any thread. What only some backends can do is a
/// refinement of this protocol: ``DamageReportingStore``, ``PartitionTrackingStore``,
/// ``LookupKeyIndexingStore`` and ``SplitReadingStore``; ask a store with `as?`.
public protocol ItemStore: AnyObject, Sendable {
    /// The access groups this store was opened for.
    var accessGroups: AccessGroups { get }

    /// Every item matching `query`, in the order they were first added.
    func items(matching query: ItemQuery) throws -> [StoreItem]

    /// Applies the operations in order, atomically.
    ///
    /// The result's ``BatchResult/commit`` holds the change stamps just before and after the commit,
    /// read atomically with it.
    @discardableResult
    func apply(_ batch: [StoreOperation]) throws -> BatchResult

    /// Lets `plan` read the store and choose a batch, and applies that batch with no other commit
    /// in between: a read-modify-write that many threads and processes can run at once without
    /// undoing each other's changes, and without starving under contention.
    ///
    /// `plan` is given the current change stamp and a function returning every item of the store's
    /// groups (call it only if the stamp says your copy is stale); it must not call the store. An
    /// empty batch writes nothing. Backends hold their write lock while `plan` runs (other writers
    /// wait; readers do not); the default implementation, for backends that cannot, plans, checks
    /// the stamp just before applying, and plans again when another commit came first.
    @discardableResult
    func applyPlanned(
        _ plan: (_ stamp: ChangeStamp, _ allItems: () throws -> [StoreItem]) throws -> [StoreOperation]
    ) throws -> BatchResult

    /// Reads every item of the store's groups, as ``allItems()`` does, handing them to `receive`
    /// in order, at most `chunkSize` at a time, while the read goes on — so a caller can work on the
    /// first items while the rest are read. The chunks together are one consistent state of the
    /// store. `receive` runs under the store's lock: it must return quickly and not call the store.
    ///
    /// The default implementation reads everything, then hands it over in chunks.
    func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws

    /// A value that changes whenever the store's content may have changed, by this process or any other.
    ///
    /// Caches built over a store compare stamps to decide whether to reload; computing one is meant
    /// to be much cheaper than a query.
    func changeStamp() throws -> ChangeStamp

    /// The items of one partition (access group and `account` attribute) with its revision, in one
    /// read: what a cache that loads partitions on first use needs. The default implementation (in
    /// `PartitionRead.swift`) takes the store's stamp and queries.
    func readPartition(accessGroup: String, account: String) throws -> PartitionRead

    /// ``readPartition(accessGroup:account:)`` for each of `partitions`, answered in the same order:
    /// what a cache loading the partitions of several environment aliases at once needs. A backend
    /// over a network reads them in one round trip. Each answer is what `readPartition` would give
    /// (its own revision), not a snapshot of all of them at one instant.
    ///
    /// The default implementation (in `PartitionRead.swift`) reads them one by one.
    func readPartitions(_ partitions: [PartitionID]) throws -> [PartitionRead]

}

/// An opaque revision of a store's content. Equal stamps mean no commit happened in between.
///
/// Two numbers of the backend's choosing, held inline: every lookup takes a stamp, so making one
/// must not allocate.
public struct ChangeStamp: Sendable, Hashable {
    public let first: UInt64
    public let second: UInt64

    public init(_ first: UInt64, _ second: UInt64 = 0) {
        self.first = first
        self.second = second
    }
}

extension ItemStore {
    /// Plans on the current content and applies if nothing was committed since, else plans again;
    /// after 200 attempts, applies the last plan regardless.
    @discardableResult
    public func applyPlanned(
        _ plan: (_ stamp: ChangeStamp, _ allItems: () throws -> [StoreItem]) throws -> [StoreOperation]
    ) throws -> BatchResult {
        for _ in 0..<200 {
            let stamp = try changeStamp()
            let batch = try plan(stamp) { try allItems() }
            if batch.isEmpty { return BatchResult() }
            // Not atomic with the commit: the best a backend without a write lock can do.
            if try changeStamp() == stamp { return try apply(batch) }
        }
        return try apply(try plan(try changeStamp()) { try allItems() })
    }

    /// Saves one item (update-then-add).
    @discardableResult
    public func save(_ item: StoreItem) throws -> BatchResult {
        try apply([.save(item)])
    }

    /// Saves the items in one atomic batch.
    @discardableResult
    public func save(_ items: [StoreItem]) throws -> BatchResult {
        try apply(items.map(StoreOperation.save))
    }

    /// Deletes every item matching `query`; returns how many were removed.
    @discardableResult
    public func delete(matching query: ItemQuery) throws -> Int {
        try apply([.delete(query)]).deleted
    }

    /// Every item in the store's access groups.
    public func allItems() throws -> [StoreItem] {
        try items(matching: ItemQuery())
    }

    public func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws {
        let items = try allItems()
        let size = max(1, chunkSize)
        for start in stride(from: 0, to: items.count, by: size) {
            receive(Array(items[start..<min(items.count, start + size)]))
        }
    }

    /// The item with this identity, if any.
    public func item(_ identity: ItemIdentity) throws -> StoreItem? {
        try items(matching: identity.query).first
    }
}
