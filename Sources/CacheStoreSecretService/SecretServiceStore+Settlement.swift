import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settling a partition created by two processes at once.
///
/// The keyring does not serialise item creation: two processes writing a new partition's first
/// items at the same moment would, with the usual replacing write, either each create an item for
/// it or the later one replace the earlier one's item with content lacking the earlier write. So a
/// partition's first write creates a new item beside any other (never replacing one), and the
/// writer then looks again: it keeps the item with the least object path (as every other settler
/// does; readers read the union of all copies), deletes the other copies once read, writes to the
/// kept one the union of its own items and every copy's, and repeats until the kept item is the only
/// one and holds its own items (or a newer version of them). A writer that cannot get there in a few
/// rounds reports a conflict instead of acknowledging a write that may be lost.
enum PartitionSettlement {
    /// The union of two copies of one partition: by identity, the later-modified version of an item
    /// (`first`'s on a tie), at the earlier place in insertion order.
    static func merge(_ first: [PartitionEntry], _ second: [PartitionEntry]) -> [PartitionEntry] {
        var merged = first
        var index: [ItemIdentity: Int] = [:]
        for (position, entry) in first.enumerated() { index[entry.item.identity] = position }
        for entry in second {
            guard let position = index[entry.item.identity] else {
                index[entry.item.identity] = merged.count
                merged.append(entry)
                continue
            }
            let kept = merged[position]
            if (entry.item.modified ?? .distantPast) > (kept.item.modified ?? .distantPast) { merged[position].item = entry.item }
            merged[position].order = min(kept.order, entry.order)
        }
        return merged
    }

    /// Whether `copy` holds every item of `own`, or a version modified no earlier.
    static func holds(_ copy: [PartitionEntry], _ own: [PartitionEntry]) -> Bool {
        var modified: [ItemIdentity: Date] = [:]
        for entry in copy { modified[entry.item.identity] = entry.item.modified ?? .distantPast }
        return own.allSatisfy { entry in
            modified[entry.item.identity].map { $0 >= (entry.item.modified ?? .distantPast) } ?? false
        }
    }

    static let rounds = 5
}

extension SecretServiceStore {
    /// Settles a partition this process has just created at `path` (see ``PartitionSettlement``):
    /// returns the kept item, its content, and the items removed (other copies, or a damaged item
    /// of the partition, which the write replaces).
    func settleNewPartition(
        _ key: PartitionKey, entries: [PartitionEntry], path: String
    ) throws(SecretServiceError) -> (path: String, entries: [PartitionEntry], removed: [String]) {
        var removed: [String] = []
        for _ in 0..<PartitionSettlement.rounds {
            let paths = try connection.search(attributes(kind: "partition") + [("partition", key.digest)])
            // Gone: another process deleted the partition after this write, which then came first.
            guard let kept = paths.min() else { return (path, entries, removed) }
            let secrets = try connection.secrets(paths)
            var copies: [String: [PartitionEntry]] = [:]
            for candidate in paths {
                if let secret = secrets[candidate], let decoded = try? PartitionCodec.decode(secret), decoded.0 == key {
                    copies[candidate] = decoded.1
                }
            }
            if paths.count == 1, let content = copies[kept], PartitionSettlement.holds(content, entries) {
                return (kept, content, removed)
            }
            var merged = entries
            for candidate in paths { if let content = copies[candidate] { merged = PartitionSettlement.merge(merged, content) } }
            // The copies go first, so that the write below replaces the kept item and no other.
            for candidate in paths where candidate != kept {
                try? connection.delete(candidate)
                removed.append(candidate)
            }
            if copies[kept] == nil { removed.append(kept) }  // a damaged item: replaced below
            _ = try store(key, merged)
        }
        throw .partitionCreationConflict(accessGroup: key.groupString, account: key.accountString)
    }
}
