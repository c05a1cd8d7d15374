import CacheStore
import CacheStoreMemory
import Foundation
import Synchronization

/// A test store over ``MemoryStore`` that keeps the partition part of the contract — which
/// partitions each commit touched (``partitionChanges(since:)``), one revision per commit, and the
/// lookup-key index — so the engine's catch-up and partition loading can be tested without a
/// backend that implements them. Every write goes through one lock, which makes `applyPlanned`
/// atomic; it counts whole-store reads and partition reads, so tests can tell which path ran.
final class PartitionedMemoryStore: ItemStore, PartitionTrackingStore, LookupKeyIndexingStore {
    let inner: MemoryStore
    /// Answer `partitionChanges(since:)` (else `nil`, as a store that keeps no history).
    let answersChanges: Bool
    /// Keep the lookup-key index.
    let keepsLookupKeys: Bool

    private struct State {
        /// Partitions touched by the commit that produced each revision.
        var log: [(revision: UInt64, partitions: Set<PartitionID>)] = []
        var keys: [PartitionID: [String]] = [:]
        var complete: Set<String> = []
        var fullReads = 0
        var partitionReads = 0
        /// Calls of `readPartitions(_:)` (each also counts its partitions in `partitionReads`).
        var batchReads = 0
        var keyQueries = 0
    }

    private let state = Mutex(State())
    private let writeLock = Mutex(())
    /// Runs at the start of each `applyPlanned`, before the write lock: another writer that takes
    /// the lock first, between the engine's catch-up and its plan.
    private let beforePlan = Mutex<(@Sendable () throws -> Void)?>(nil)

    /// Sets what runs before each `applyPlanned` (nil: nothing).
    func runBeforePlanning(_ body: (@Sendable () throws -> Void)?) { beforePlan.withLock { $0 = body } }

    init(groups: [String], answersChanges: Bool = true, keepsLookupKeys: Bool = true) throws {
        inner = MemoryStore(accessGroups: try AccessGroups(groups))
        self.answersChanges = answersChanges
        self.keepsLookupKeys = keepsLookupKeys
    }

    var accessGroups: AccessGroups { inner.accessGroups }
    var fullReads: Int { state.withLock { $0.fullReads } }
    var partitionReads: Int { state.withLock { $0.partitionReads } }
    var keyQueries: Int { state.withLock { $0.keyQueries } }
    var batchReads: Int { state.withLock { $0.batchReads } }
    func lookupKeys(of partition: PartitionID) -> [String]? { state.withLock { $0.keys[partition] } }
    func isComplete(_ group: String) -> Bool { state.withLock { $0.complete.contains(group) } }

    func items(matching query: ItemQuery) throws -> [StoreItem] {
        if query == ItemQuery() { state.withLock { $0.fullReads += 1 } }
        return try inner.items(matching: query)
    }

    func changeStamp() throws -> ChangeStamp { try inner.changeStamp() }

    func apply(_ batch: [StoreOperation]) throws -> BatchResult {
        try writeLock.withLock { _ in try applyLocked(batch) }
    }

    func applyPlanned(
        _ plan: (ChangeStamp, () throws -> [StoreItem]) throws -> [StoreOperation]
    ) throws -> BatchResult {
        if let body = beforePlan.withLock({ $0 }) { try body() }
        return try writeLock.withLock { _ in
            let batch = try plan(try inner.changeStamp()) { try self.items(matching: ItemQuery()) }
            return batch.isEmpty ? BatchResult() : try applyLocked(batch)
        }
    }

    private func applyLocked(_ batch: [StoreOperation]) throws -> BatchResult {
        try inner.accessGroups.check(batch)
        var touched = Set<PartitionID>()
        for operation in batch {
            switch operation {
            case .save(let item): touched.insert(item.partition)
            case .delete(let query):
                for item in try inner.items(matching: query) { touched.insert(item.partition) }
            case .setLookupKeys, .declareLookupKeysComplete: break
            }
        }
        let result = try inner.apply(batch)
        state.withLock { state in
            for operation in batch {
                switch operation {
                case .setLookupKeys(let partition, let keys) where keepsLookupKeys:
                    state.keys[partition] = keys.isEmpty ? nil : keys
                case .declareLookupKeysComplete(let group) where keepsLookupKeys:
                    state.complete.insert(group)
                default: break
                }
            }
            if let commit = result.commit, commit.base != commit.result {
                state.log.append((commit.result.first, touched))
            }
        }
        return result
    }

    func readPartition(accessGroup: String, account: String) throws -> PartitionRead {
        try writeLock.withLock { _ in
            state.withLock { $0.partitionReads += 1 }
            return PartitionRead(
                items: try inner.items(matching: ItemQuery(accessGroup: accessGroup, account: account)),
                revision: try inner.changeStamp())
        }
    }

    func readPartitions(_ partitions: [PartitionID]) throws -> [PartitionRead] {
        state.withLock { $0.batchReads += 1 }
        return try partitions.map { try readPartition(accessGroup: $0.accessGroup, account: $0.account) }
    }

    func partitionChanges(since revision: ChangeStamp?) throws -> PartitionChanges? {
        guard answersChanges else { return nil }
        return try writeLock.withLock { _ in
            let current = try inner.changeStamp()
            guard let revision else { return PartitionChanges(revision: current, partitions: []) }
            let partitions = state.withLock { state in
                state.log.filter { $0.revision > revision.first }.reduce(into: Set<PartitionID>()) { $0.formUnion($1.partitions) }
            }
            return PartitionChanges(revision: current, partitions: Array(partitions))
        }
    }

    func partitions(withLookupKey key: String) throws -> [PartitionID]? {
        guard keepsLookupKeys else { return nil }
        return state.withLock { state in
            state.keyQueries += 1
            guard inner.accessGroups.all.allSatisfy(state.complete.contains) else { return nil }
            return state.keys.filter { $0.value.contains(key) }.map(\.key).sorted()
        }
    }
}
