import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

/// How much of a streamed import is written per transaction: a batch closes at `items` items or
/// `bytes` bytes of payload, whichever comes first.
struct ImportBatchLimit: Sendable {
    var items: Int
    var bytes: Int

    /// About 4 MB of payload a transaction: the write-ahead log stays at a few tens of MB (each
    /// batch also rewrites the index pages its rows land on), and a writer of another process waits
    /// for one batch, not for the whole import.
    static let standard = ImportBatchLimit(items: 4096, bytes: 4 << 20)
}

/// Writes the batches of one import: each in its own transaction, with the lookup keys of the
/// partitions it touches, and the write-ahead log checkpointed after each.
struct ImportBatchWriter {
    let store: any ItemStore
    /// Items committed so far, and of them those new to the store.
    private(set) var written = 0
    private(set) var added = 0

    init(store: any ItemStore) {
        self.store = store
    }

    mutating func write(_ items: [StoreItem]) throws {
        guard !items.isEmpty else { return }
        let result = try apply(items.map(StoreOperation.save))
        written += items.count
        added += result.added
        // A failed checkpoint leaves the log longer, nothing else: the batch is committed.
        _ = try? (store as? any LogCheckpointingStore)?.checkpointLog(truncating: false)
    }

    /// After the last batch: empties the log file if nobody is reading it right now.
    func finish() {
        guard written > 0 else { return }
        _ = try? (store as? any LogCheckpointingStore)?.checkpointLog(truncating: true)
    }

    /// `batch` applied with the lookup keys of the partitions it saves into, planned on a read of
    /// those partitions alone (``ItemStore/applyKeepingLookupKeys(_:)`` reads the whole store, once
    /// per batch here): the plan is applied only if nothing was committed since the read, else read
    /// again; after five tries, the whole-store plan.
    private func apply(_ batch: [StoreOperation]) throws -> BatchResult {
        guard store.lookupKeyIndex != nil, batch.contains(where: LookupKey.changesKeys) else { return try store.apply(batch) }
        var partitions: [PartitionID] = []
        var seen = Set<PartitionID>()
        for case .save(let item) in batch where LookupKey.mayCarryKey(type: item.type) && seen.insert(item.partition).inserted {
            partitions.append(item.partition)
        }
        for _ in 0..<5 {
            let stamp = try store.changeStamp()
            var current: [PartitionID: [ItemIdentity: String?]] = [:]
            for (partition, read) in zip(partitions, try store.readPartitions(partitions)) {
                for item in read.items where LookupKey.mayCarryKey(type: item.type) {
                    current[partition, default: [:]][item.identity] = LookupKey.key(of: item)
                }
            }
            var stale = false
            let result = try store.applyPlanned { now, _ in
                guard now == stamp else {
                    stale = true
                    return []
                }
                // Saves only: no delete asks which partitions it touches.
                return LookupKey.appendingKeys(to: batch, current: { current[$0] ?? [:] }, partitions: { _ in [] })
            }
            if !stale { return result }
        }
        return try store.applyKeepingLookupKeys(batch)
    }
}

/// An import that stopped after some of its batches were committed (see ``CacheInterchange``):
/// those items are in the store, the rest are not. Importing the same file again completes it —
/// an import replaces items by identity, so the items already written are written again unchanged.
public struct ImportInterruptedError: Error, CategorizedError, CustomStringConvertible {
    /// The input (a path, `stdin`).
    public let source: String
    /// Items committed before the failure.
    public let written: Int
    /// Items the whole import would have written.
    public let total: Int
    /// What stopped it (the store's error).
    public let cause: any Error

    public var category: ErrorCategory { ErrorCategory(of: cause) }

    public var remedy: String? {
        "fix the cause, then import \(source) again: the items already written are replaced by the same content"
    }

    public var description: String {
        "\(source): the import stopped after \(written) of \(total) items were committed (a large import is written in batches); "
            + "the rest were not written: \(cause); once that is fixed, importing the file again completes it"
    }
}
