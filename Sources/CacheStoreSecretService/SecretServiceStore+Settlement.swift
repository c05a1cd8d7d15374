@_spi(Pause) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settling a partition created by several processes at once.
///
/// The keyring does not serialise item creation, and a replacing write can only name an item by
/// its attributes, which every copy of a partition shares. With the usual replacing write, two
/// processes writing a new partition's first items at the same moment would either each create an
/// item or the later one replace the earlier one's with content lacking the earlier write. So:
///
/// - a partition's first write creates a new item beside any other, never replacing one;
/// - the writer then searches for the partition's items; while there is more than one (or the one
///   lacks its write), it reads them all, creates one more item holding their union and its own
///   items (by identity, the later-modified version), and deletes the items it read. Settlers never
///   overwrite an item, and delete only items whose content they have put in an item they created,
///   so no settler loses another's write;
/// - readers read the union of a partition's items, and the next ordinary write of the partition
///   deletes the copies it read. A settler that has not reduced the copies to one after a few
///   rounds (others settling at the same time) leaves them so, its write safe in one of them.
///
/// Only an ordinary (replacing) write racing a first write can lose it, as any two writes of one
/// partition at the same moment keep the last (docs/architecture.md, "Concurrency limits").
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

    static let rounds = 8
}

extension SecretServiceStore {
    /// Settles a partition this process has just created at `path` (see ``PartitionSettlement``):
    /// returns the item kept and the content read.
    func settleNewPartition(
        _ key: PartitionKey, entries: [PartitionEntry], path: String
    ) throws(SecretServiceError) -> (path: String, entries: [PartitionEntry]) {
        var latest = (path: path, entries: entries)
        for round in 0..<PartitionSettlement.rounds {
            if round > 0 { pauseThread(for: .milliseconds(Int.random(in: 5...40))) }  // others settling: let one win
            let paths = try connection.search(attributes(kind: "partition") + [("partition", key.digest)])
            // Gone: another process deleted the partition after this write, which then came first.
            guard !paths.isEmpty else { return latest }
            let secrets = try connection.secrets(paths)
            var merged = entries
            var read: [(path: String, entries: [PartitionEntry])] = []
            for candidate in paths {
                // Deleted meanwhile by another settler, or not decodable (damaged, or not yet holding
                // its secret): never deleted here, since its content could not be carried over.
                guard let secret = secrets[candidate], let decoded = try? PartitionCodec.decode(secret), decoded.0 == key else { continue }
                read.append((candidate, decoded.1))
                merged = PartitionSettlement.merge(merged, decoded.1)
            }
            if read.count == 1, PartitionSettlement.holds(read[0].entries, entries) {
                return read[0]
            }
            let created = try store(key, merged, replace: false)
            latest = (created, merged)
            for candidate in read where candidate.path != created { try? connection.delete(candidate.path) }
        }
        return latest
    }
}
