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
        /// partitions; calls over every account read the store each time and are not hot-path
        /// calls in this mode: ``TokenCache/search(_:)`` all of it, a listing
        /// (``TokenCache/accounts(clientId:environment:idTokenClaims:)``) the kinds of item it looks
        /// at where the store can select them (`TypeSelectingStore`).
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
    /// Needs whose partitions are all loaded, with their partitions and last use. A need is
    /// forgotten when one of its partitions is evicted, re-read or written (its accounts, and so the
    /// partitions it expands to, may change), and a need that asked the store beyond its partitions
    /// (``MetNeed/searched``) whenever anything changed.
    private(set) var met: [PartitionNeed: MetNeed] = [:]
    /// The met needs naming each partition, and the searched ones: what `forgetNeeds` drops,
    /// found without going through every met need (a revalidation names a few partitions).
    /// Entries of needs forgotten for another partition may linger; they only forget a need met
    /// again since, which then takes the slow path once more.
    private var needsNaming: [PartitionID: Set<PartitionNeed>] = [:]
    private var searchedNeeds: Set<PartitionNeed> = []

    /// A need met by the loaded partitions. A warm lookup only bumps `used` (no table is written);
    /// eviction folds it into the partitions' recency.
    final class MetNeed: @unchecked Sendable {
        // Read and written only under the engine's lock.
        /// Every partition the need named (empty ones too: a first item there changes the answer).
        let partitions: [PartitionID]
        /// Whether the store was asked which partitions to load (a username's accounts in the
        /// lookup-key index, an account's partitions under hosts no known cloud has): a change to a
        /// partition the need does not hold yet may add to them, so any change forgets it.
        let searched: Bool
        var used: UInt64

        init(_ partitions: [PartitionID], searched: Bool, used: UInt64) {
            self.partitions = partitions
            self.searched = searched
            self.used = used
        }
    }

    mutating func remember(_ need: PartitionNeed, _ metNeed: MetNeed) {
        met[need] = metNeed
        for partition in metNeed.partitions { needsNaming[partition, default: []].insert(need) }
        if metNeed.searched { searchedNeeds.insert(need) }
    }

    /// Forgets the met needs holding one of `partitions`; with `storeChanged` (the store moved, not
    /// only the index evicted) every searched need too. Returns how many were forgotten.
    @discardableResult
    mutating func forgetNeeds(touching partitions: Set<PartitionID>, storeChanged: Bool) -> Int {
        var forgotten = 0
        for partition in partitions {
            guard let needs = needsNaming.removeValue(forKey: partition) else { continue }
            for need in needs where met.removeValue(forKey: need) != nil { forgotten += 1 }
        }
        if storeChanged {
            for need in searchedNeeds where met.removeValue(forKey: need) != nil { forgotten += 1 }
            searchedNeeds = []
        }
        return forgotten
    }

    mutating func forgetAllNeeds() {
        met = [:]
        needsNaming = [:]
        searchedNeeds = []
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

    /// Drops everything (a store that cannot name what changed); returns the met needs forgotten.
    @discardableResult
    mutating func removeAll() -> Int {
        let forgotten = met.count
        partitions = [:]
        items = 0
        forgetAllNeeds()
        return forgotten
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
        var touched = Set<PartitionID>()
        var wrote = false
        for operation in batch {
            switch operation {
            case .save(let item): touched.insert(item.partition); wrote = true
            case .delete(let query):
                wrote = true
                guard let group = query.accessGroup, let account = query.account else {
                    // A deletion by attributes may reach any partition.
                    statistics.metNeedsDropped += loaded.met.count
                    loaded.forgetAllNeeds()
                    continue
                }
                touched.insert(PartitionID(accessGroup: group, account: account))
            case .setLookupKeys(let partition, _): touched.insert(partition); wrote = true
            case .declareLookupKeysComplete: continue
            }
        }
        for partition in touched where loaded.partitions[partition] != nil {
            let count = index.itemCount(in: partition)
            loaded.items += count - loaded.partitions[partition]!.items
            loaded.partitions[partition]!.items = count
        }
        statistics.metNeedsDropped += loaded.forgetNeeds(touching: touched, storeChanged: wrote)
    }

    /// Replaces a partition's content and records it as loaded.
    mutating func load(_ partition: PartitionID, items: [StoreItem]) {
        index.replacePartition(partition, with: items)
        let count = index.itemCount(in: partition)
        loaded.items += count - (loaded.partitions[partition]?.items ?? 0)
        loaded.tick &+= 1
        loaded.partitions[partition] = (count, loaded.tick)
    }

    /// Once more than `limit` items are loaded, drops least recently used partitions, never those in
    /// `keep`, down to seven eighths of it: the recency sort covers every loaded partition, so it is
    /// paid once per eighth of the limit rather than at every cold lookup.
    mutating func evict(toward limit: Int, keeping keep: Set<PartitionID>) {
        guard loaded.items > limit else { return }
        let target = limit - limit / 8
        // Sorted on the numbers themselves: a comparison that looked both partitions up in a
        // dictionary hashed two account attributes per step, a fifth of a cold lookup at the limit.
        let candidates = loaded.recency.filter { !keep.contains($0.key) }.sorted { $0.value < $1.value }
        var evicted = Set<PartitionID>()
        for (partition, _) in candidates {
            guard loaded.items > target else { break }
            index.removePartition(partition)
            loaded.items -= loaded.partitions[partition]!.items
            loaded.partitions[partition] = nil
            evicted.insert(partition)
        }
        statistics.evictions += 1
        statistics.partitionsEvicted += evicted.count
        // Only the needs that held an evicted partition are no longer met.
        statistics.metNeedsDropped += loaded.forgetNeeds(touching: evicted, storeChanged: false)
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
