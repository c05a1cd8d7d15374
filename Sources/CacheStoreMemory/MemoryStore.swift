import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// An item store that lives in this process's memory only: for tests and ephemeral caches.
///
/// It keeps the full ``ItemStore`` contract, so it is the reference the other backends are tested
/// against.
public final class MemoryStore: ItemStore, PartitionTrackingStore, LookupKeyIndexingStore, PartitionPruningStore {
    public let accessGroups: AccessGroups

    private struct State {
        /// Items in insertion order; `nil` marks a deleted slot until the next compaction.
        var slots: [StoreItem?] = []
        var index: [ItemIdentity: Int] = [:]
        /// Each partition's slots, in order (some may be deleted slots until the next compaction).
        var partitionSlots: [PartitionID: [Int]] = [:]
        var holes = 0
        var revision: UInt64 = 0
        /// The revision of the last commit that changed each partition.
        var partitionRevisions: [PartitionID: UInt64] = [:]
        /// Each partition's lookup keys, and the partitions holding each key.
        var lookupKeys: [PartitionID: Set<String>] = [:]
        var keyIndex: [String: Set<PartitionID>] = [:]
        /// The revision at the last prune that removed a partition's revision: older revisions are
        /// answered `nil` by `partitionChanges`, since they may not have seen a pruned removal.
        var prunedThrough: UInt64 = 0
    }

    private let state = StateLock(State())
    private let clock: @Sendable () -> Date
    private let maximumDataSize: Int
    /// Tells this store's partition revisions from any other store's.
    private let epoch = UInt64.random(in: 1...UInt64.max)

    /// Opens an empty store for `accessGroups`.
    ///
    /// - Parameters:
    ///   - clock: the source of `created`/`modified` dates; tests may fix it.
    ///   - maximumDataSize: the largest `data` an item may have.
    public init(
        accessGroups: AccessGroups,
        maximumDataSize: Int = StoreLimits.maximumDataSize,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.accessGroups = accessGroups
        self.maximumDataSize = maximumDataSize
        self.clock = clock
    }

    public func items(matching query: ItemQuery) throws -> [StoreItem] {
        try accessGroups.check(query)
        return state.withLock { state in
            if let identity = query.identity {
                guard let slot = state.index[identity], let item = state.slots[slot], query.matches(item) else {
                    return []
                }
                return [item]
            }
            return state.slots.compactMap { item in
                guard let item, query.matches(item) else { return nil }
                return item
            }
        }
    }

    public func apply(_ batch: [StoreOperation]) throws -> BatchResult {
        try apply(batch, expecting: nil)!
    }

    /// Applies the batch as ``apply(_:)`` does, but only when nothing was committed since `stamp`
    /// (a value ``changeStamp()`` returned), checked atomically with the commit; otherwise changes
    /// nothing and returns `nil`.
    public func apply(_ batch: [StoreOperation], ifUnchangedSince stamp: ChangeStamp) throws -> BatchResult? {
        try apply(batch, expecting: stamp)
    }

    public func applyPlanned(
        _ plan: (_ stamp: ChangeStamp, _ allItems: () throws -> [StoreItem]) throws -> [StoreOperation]
    ) throws -> BatchResult {
        let now = clock()
        return try state.withLock { state throws -> BatchResult in
            let snapshot = state
            let batch = try plan(ChangeStamp(snapshot.revision)) { snapshot.slots.compactMap { $0 } }
            try validate(batch)
            return Self.apply(batch, at: now, to: &state)
        }
    }

    private func validate(_ batch: [StoreOperation]) throws {
        try accessGroups.check(batch)
        for case .save(let item) in batch { try StoreLimits.check(item, maximumDataSize: maximumDataSize) }
    }

    private func apply(_ batch: [StoreOperation], expecting stamp: ChangeStamp?) throws -> BatchResult? {
        try validate(batch)
        let now = clock()
        return state.withLock { state -> BatchResult? in
            if let stamp, ChangeStamp(state.revision) != stamp { return nil }
            return Self.apply(batch, at: now, to: &state)
        }
    }

    /// Applies a validated batch: every step succeeds, so the batch is all-or-nothing.
    private static func apply(_ batch: [StoreOperation], at now: Date, to state: inout State) -> BatchResult {
            var result = BatchResult()
            var touched = Set<PartitionID>()
            for operation in batch {
                switch operation {
                case .save(var item):
                    item.modified = now
                    if let slot = state.index[item.identity], let existing = state.slots[slot] {
                        item.created = existing.created
                        state.slots[slot] = item
                        result.replaced += 1
                    } else {
                        item.created = now
                        state.index[item.identity] = state.slots.count
                        state.partitionSlots[item.partition, default: []].append(state.slots.count)
                        state.slots.append(item)
                        result.added += 1
                    }
                    touched.insert(item.partition)
                case .delete(let query):
                    for (slot, item) in state.slots.enumerated() {
                        guard let item, query.matches(item) else { continue }
                        state.slots[slot] = nil
                        state.index[item.identity] = nil
                        state.holes += 1
                        result.deleted += 1
                        touched.insert(item.partition)
                    }
                case .setLookupKeys(let partition, let keys):
                    for key in state.lookupKeys[partition] ?? [] {
                        state.keyIndex[key]?.remove(partition)
                        if state.keyIndex[key]?.isEmpty == true { state.keyIndex[key] = nil }
                    }
                    state.lookupKeys[partition] = keys.isEmpty ? nil : Set(keys)
                    for key in keys { state.keyIndex[key, default: []].insert(partition) }
                case .declareLookupKeysComplete:
                    break  // complete from creation: every partition this store holds was written with it
                }
            }
            if state.holes > 64 && state.holes * 2 > state.slots.count { Self.compact(&state) }
            guard !batch.isEmpty else { return result }
            let base = ChangeStamp(state.revision)
            if result.added + result.replaced + result.deleted > 0 { state.revision &+= 1 }
            for partition in touched { state.partitionRevisions[partition] = state.revision }
            result.commit = CommitStamps(base: base, result: ChangeStamp(state.revision))
            return result
    }

    public func changeStamp() throws -> ChangeStamp {
        ChangeStamp(state.withLock { $0.revision })
    }

    // MARK: - Partitions

    /// The partition's items and the revision of the last commit that changed it (0 if none did),
    /// paired with this store's epoch.
    public func readPartition(accessGroup: String, account: String) throws -> PartitionRead {
        try accessGroups.check(accessGroup)
        let partition = PartitionID(accessGroup: accessGroup, account: account)
        return state.withLock { state in
            PartitionRead(
                items: (state.partitionSlots[partition] ?? []).compactMap { state.slots[$0] },
                revision: ChangeStamp(state.partitionRevisions[partition] ?? 0, epoch))
        }
    }

    public func partitionChanges(since revision: ChangeStamp?) throws -> PartitionChanges? {
        state.withLock { state in
            let now = ChangeStamp(state.revision, epoch)
            guard let revision else { return PartitionChanges(revision: now, partitions: []) }
            guard revision.second == epoch, revision.first <= state.revision, revision.first >= state.prunedThrough else { return nil }
            return PartitionChanges(
                revision: now,
                partitions: state.partitionRevisions.compactMap { $0.value > revision.first ? $0.key : nil })
        }
    }

    public func partitions(withLookupKey key: String) throws -> [PartitionID]? {
        state.withLock { state in
            (state.keyIndex[key] ?? []).filter { accessGroups.contains($0.accessGroup) }.sorted()
        }
    }

    public var keepsLookupKeys: Bool { true }

    // MARK: - Pruning

    /// Removes the revisions and lookup keys of partitions that hold no item. A revision older than
    /// the prune is answered `nil` from then on by `partitionChanges` (re-read everything), so a
    /// removal pruned before its holder caught up is never missed.
    public func pruneRemovedPartitions() throws -> PrunedRecords {
        state.withLock { state in
            func holdsItems(_ partition: PartitionID) -> Bool {
                (state.partitionSlots[partition] ?? []).contains { state.slots[$0] != nil }
            }
            var pruned = PrunedRecords()
            for partition in Array(state.partitionRevisions.keys) where !holdsItems(partition) {
                state.partitionRevisions[partition] = nil
                state.partitionSlots[partition] = nil
                pruned.partitions += 1
            }
            for (partition, keys) in state.lookupKeys where !holdsItems(partition) {
                state.lookupKeys[partition] = nil
                for key in keys {
                    state.keyIndex[key]?.remove(partition)
                    if state.keyIndex[key]?.isEmpty == true { state.keyIndex[key] = nil }
                }
                pruned.lookupKeys += keys.count
            }
            if pruned.partitions > 0 { state.prunedThrough = state.revision }
            return pruned
        }
    }

    private static func compact(_ state: inout State) {
        state.slots = state.slots.filter { $0 != nil }
        state.holes = 0
        state.index = [:]
        state.partitionSlots = [:]
        for (slot, item) in state.slots.enumerated() {
            state.index[item!.identity] = slot
            state.partitionSlots[item!.partition, default: []].append(slot)
        }
    }
}
