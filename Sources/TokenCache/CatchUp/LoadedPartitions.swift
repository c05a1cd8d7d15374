@_spi(Bytes) import CacheStore

extension TokenCache.Configuration {
    /// What the engine keeps in memory.
    public enum Loading: Sendable, Hashable {
        /// Every item of the store, indexed when the engine first reads it and kept current: the
        /// default, for a desktop user's cache. Every lookup is answered from memory.
        case wholeStore
        /// Only the partitions (see `PartitionID`) lookups touched, each read on first use (one store
        /// query), at most about `limit` items in all, least recently used out: for a store of many
        /// users (a server). A lookup by home account or username reads only that account's
        /// partitions; listings over every account (``TokenCache/accounts(clientId:environment:)``,
        /// ``TokenCache/search(_:)``) read the whole store each time and are not hot-path calls in
        /// this mode.
        case partitions(limit: Int)
    }
}

/// What a lookup needs loaded, in partition loading mode; also the key its answer is remembered by.
enum PartitionNeed: DigestHashable, Sendable {
    /// An account's partitions: its items under every alias of `environment` (every known host when
    /// `nil`); with `metadata` the app metadata and account metadata (sign-in states) they are read
    /// with; with `legacy` the legacy ADAL entries filed under the account's usernames.
    case homeAccount(String, environment: String?, legacy: Bool, metadata: Bool = true)
    /// The partitions of the accounts with this username (and its legacy ADAL entries).
    case username(String)
    /// App metadata under every alias of `environment` (every known host when `nil`).
    case appMetadata(environment: String?)
    /// The partitions of these accounts (normalized home account ids) under every known host and
    /// those the store finds, with the account metadata: what filing MSAL ObjC's per-app
    /// account-metadata items per account reads.
    case homeAccounts([String])

    // Hashed through a `KeyDigest` and compared as bytes, as the access-token map's key is: every
    // warm lookup in this mode hashes its need, and a home account id is 70 bytes.
    static func == (lhs: PartitionNeed, rhs: PartitionNeed) -> Bool {
        func same(_ first: String?, _ second: String?) -> Bool {
            guard let first, let second else { return first == nil && second == nil }
            return sameBytes(first, second)
        }
        switch (lhs, rhs) {
        case let (.homeAccount(first, firstEnvironment, firstLegacy, firstMetadata), .homeAccount(second, secondEnvironment, secondLegacy, secondMetadata)):
            return firstLegacy == secondLegacy && firstMetadata == secondMetadata
                && sameBytes(first, second) && same(firstEnvironment, secondEnvironment)
        case let (.username(first), .username(second)):
            return sameBytes(first, second)
        case let (.appMetadata(first), .appMetadata(second)):
            return same(first, second)
        case let (.homeAccounts(first), .homeAccounts(second)):
            return first.count == second.count && zip(first, second).allSatisfy { sameBytes($0, $1) }
        default:
            return false
        }
    }

    /// The strings' bytes and the need's shape: its case, its flags and whether its environment is
    /// absent.
    var digest: KeyDigest {
        var digest = KeyDigest()
        let shape: UInt64
        switch self {
        case .homeAccount(let home, let environment, let legacy, let metadata):
            digest.add(home)
            digest.add(environment ?? "")
            shape = 1 | (legacy ? 8 : 0) | (metadata ? 16 : 0) | (environment == nil ? 32 : 0)
        case .username(let username):
            digest.add(username)
            shape = 2
        case .appMetadata(let environment):
            digest.add(environment ?? "")
            shape = 3 | (environment == nil ? 32 : 0)
        case .homeAccounts(let homes):
            for home in homes { digest.add(home) }
            shape = 4 | UInt64(homes.count) << 8
        }
        digest.add(word: shape)
        return digest
    }
}

/// The partitions an index holds in partition loading mode, with how recently each was used, and
/// the needs known to be met by them (so a warm lookup checks one entry).
struct LoadedPartitions: Sendable {
    /// Loaded partitions: their item count and last use.
    var partitions: [PartitionID: (items: Int, used: UInt64)] = [:]
    var items = 0
    var tick: UInt64 = 0
    /// Changes whenever the loaded partitions are revalidated: reads begun before may be older
    /// than what the index holds, and are not added.
    var epoch: UInt64 = 0
    /// Needs whose partitions are all loaded, with their partitions and last use; cleared whenever
    /// a partition is dropped or re-read (its accounts, and so the partitions a need expands to, may
    /// change).
    var met: [PartitionNeed: MetNeed] = [:]

    /// A need met by the loaded partitions. A warm lookup only bumps `used` (no table is written);
    /// eviction folds it into the partitions' recency.
    final class MetNeed: @unchecked Sendable {
        // Read and written only under the engine's lock.
        let partitions: [PartitionID]
        var used: UInt64

        init(_ partitions: [PartitionID], used: UInt64) {
            self.partitions = partitions
            self.used = used
        }
    }

    mutating func touch(_ partitions: [PartitionID]) {
        tick &+= 1
        for partition in partitions { self.partitions[partition]?.used = tick }
    }

    /// When each loaded partition was last used, counting uses through met needs.
    var recency: [PartitionID: UInt64] {
        var recency = partitions.mapValues(\.used)
        for need in met.values {
            for partition in need.partitions where (recency[partition] ?? .max) < need.used { recency[partition] = need.used }
        }
        return recency
    }

    /// Drops everything (a store that cannot name what changed).
    mutating func removeAll() {
        partitions = [:]
        items = 0
        met = [:]
    }
}

extension TokenCache.State {
    /// Forgets partitions a batch wrote to that the index does not hold whole (see `record`).
    mutating func dropPartial(touchedBy batch: [StoreOperation]) {
        var seen = Set<PartitionID>()
        for case .save(let item) in batch where loaded.partitions[item.partition] == nil && seen.insert(item.partition).inserted {
            index.removePartition(item.partition)
        }
        // The counts of loaded partitions the batch changed.
        for partition in Set(batch.compactMap { operation -> PartitionID? in
            switch operation {
            case .save(let item): item.partition
            case .delete(let query): query.accessGroup.flatMap { group in query.account.map { PartitionID(accessGroup: group, account: $0) } }
            default: nil
            }
        }) where loaded.partitions[partition] != nil {
            let count = index.itemCount(in: partition)
            loaded.items += count - loaded.partitions[partition]!.items
            loaded.partitions[partition]!.items = count
        }
        loaded.met = [:]
    }

    /// Replaces a partition's content and records it as loaded.
    mutating func load(_ partition: PartitionID, items: [StoreItem]) {
        index.replacePartition(partition, with: items)
        let count = index.itemCount(in: partition)
        loaded.items += count - (loaded.partitions[partition]?.items ?? 0)
        loaded.tick &+= 1
        loaded.partitions[partition] = (count, loaded.tick)
    }

    /// Drops least recently used partitions, never those in `keep`, until at most `limit` items
    /// are loaded.
    mutating func evict(toward limit: Int, keeping keep: Set<PartitionID>) {
        guard loaded.items > limit else { return }
        // Sorted on the numbers themselves: a comparison that looked both partitions up in a
        // dictionary hashed two account attributes per step, a fifth of a cold lookup at the limit.
        let candidates = loaded.recency.filter { !keep.contains($0.key) }.sorted { $0.value < $1.value }
        for (partition, _) in candidates {
            guard loaded.items > limit else { break }
            index.removePartition(partition)
            loaded.items -= loaded.partitions[partition]!.items
            loaded.partitions[partition] = nil
        }
        loaded.met = [:]
    }
}

extension RefreshTokenQuery {
    /// What a refresh-token lookup needs loaded in partition mode.
    var need: PartitionNeed {
        switch subject {
        case .homeAccountId(let id): .homeAccount(id, environment: environment, legacy: true, metadata: false)
        case .username(let username): .username(username)
        }
    }
}
