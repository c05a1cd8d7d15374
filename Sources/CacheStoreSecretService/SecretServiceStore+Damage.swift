import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Partition items whose secret cannot be decoded (written by something else, cut short, or of a
/// format this tokencache does not know): every load skips and counts them, so one such item never
/// fails the reads of every other partition.
extension SecretServiceStore: DamageReportingStore {
    /// How many partition items the most recent load (always of the whole store) skipped.
    public func damagedItemCount() -> Int {
        state.withLock { $0.damaged.count }
    }

    /// One entry per undecodable partition item, named by its access group and keyring object path
    /// (its account is inside the secret that cannot be read).
    public func damagedItems() throws -> [DamagedItem] {
        try state.withLock { state throws(SecretServiceError) in
            try revalidate(&state)
            return state.damaged.map(\.item)
        }
    }

    /// Deletes the undecodable partition items, each checked again just before (an item replaced
    /// by a good partition meanwhile is kept), then moves the revision on so that other processes
    /// reload. Returns how many were deleted.
    public func removeDamagedItems() throws -> Int {
        try state.withLock { state throws(SecretServiceError) in
            state.loaded = false
            try revalidate(&state)
            let paths = state.damaged.map(\.path)
            guard !paths.isEmpty else { return 0 }
            let secrets = try connection.secrets(paths)
            var removed = 0
            for path in paths {
                guard let secret = secrets[path], (try? PartitionCodec.decode(secret)) == nil else { continue }
                try connection.delete(path)
                removed += 1
            }
            var revision = UInt64.random(in: 1...UInt64.max)
            while revision == state.revision { revision = UInt64.random(in: 1...UInt64.max) }
            try writeRevision(String(revision, radix: 16), &state)
            state.loaded = false
            return removed
        }
    }

    /// The damaged item standing for an undecodable partition item found under `group`.
    static func damagedPartition(group: String, path: String) -> DamagedItem {
        DamagedItem(
            identity: ItemIdentity(accessGroup: group, account: "", service: "", type: nil),
            reason: .unreadablePartition, location: "keyring item \(path)")
    }
}
