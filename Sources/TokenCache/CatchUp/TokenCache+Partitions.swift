@_spi(Pause) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

/// Partition loading mode (``TokenCache/Configuration/Loading/partitions(limit:)``): the index holds
/// only the partitions lookups touched. A lookup names what it needs (a ``PartitionNeed``); the
/// first time, its partitions are read (one `readPartitions` batch, and one more for the partitions
/// those lead to, such as a username's accounts) and the need is remembered as met,
/// so the next identical lookup, while the store's stamp is unchanged, is one table probe away from
/// the whole-store path. When the stamp changed, the loaded partitions are revalidated: re-read
/// only those the store names as changed (`partitionChanges(since:)`), or all dropped when it
/// cannot tell. Met needs outlive a revalidation unless it re-read one of their partitions (or
/// they asked the store which partitions to load: see `LoadedPartitions.MetNeed.searched`), so
/// another writer's save to one user leaves every other user's lookups warm.
extension TokenCache {
    /// How often a partition-mode lookup or save starts over when other writers moved the store
    /// between its revalidation and its answer, before it falls back to a whole read: a read of every
    /// user's items, the last resort, since on a store of many users it costs far more than a retry.
    static let partitionAttempts = 12

    /// How many times a planned save starts over at once, neither pausing nor counting as an
    /// attempt (see `commitPlannedInPartitions`).
    static let freeRetries = 32

    /// From the third attempt on, waits 250 µs, doubling to at most 8 ms (about 50 ms in all), so the
    /// other writers' commits and their invalidations land before the next try instead of during it.
    func pauseBeforeRetry(_ attempt: Int) {
        guard attempt >= 2 else { return }
        state.withLock { $0.statistics.pauses += 1 }
        pauseThread(for: .microseconds(250 << min(attempt - 2, 5)))
    }

    /// Whether meeting `need` asks the store which partitions to load, beyond those it names and
    /// those the loaded ones lead to (see `directPartitions`): then a change anywhere may add one.
    private func searches(_ need: PartitionNeed) -> Bool {
        switch need {
        case .username: true
        case .homeAccount(_, let environment, let legacy, _): (environment == nil || legacy) && store is any SplitReadingStore
        case .appMetadata: false
        // Each account as `.homeAccount` with no environment: under every host the store finds.
        case .homeAccounts: store is any SplitReadingStore
        }
    }

    private enum PlanRetry: Error {
        case stale
        case missing([PartitionID])
    }

    /// Runs `body` on an index holding what `need` names, current as of this call's stamp. In
    /// whole-store mode `need` is not even computed.
    func withIndex<R>(_ need: @autoclosure () -> PartitionNeed, _ body: (CacheIndex) throws -> R) throws -> R {
        guard case .partitions(let limit) = configuration.loading else { return try withIndex(body) }
        let need = need()
        let stamp = try store.changeStamp()
        var result: R?
        try state.withLock { state in
            guard state.stamp == stamp, let met = state.loaded.met[need] else { return }
            state.loaded.tick &+= 1
            met.used = state.loaded.tick
            state.statistics.warmAnswers += 1
            result = try body(state.index)
        }
        if let result { return result }
        let searched = searches(need)
        // An app's account-metadata item the need loaded is filed per account, after the answer.
        defer { fileLoadedAccountMetadata() }
        for attempt in 0..<Self.partitionAttempts {
            pauseBeforeRetry(attempt)
            let stamp = try store.changeStamp()
            let epoch = try revalidate(to: stamp)
            // A revalidation keeps the needs none of whose partitions changed.
            var kept: R?
            try state.withLock { state in
                guard state.stamp == stamp, state.loaded.epoch == epoch, let met = state.loaded.met[need] else { return }
                state.loaded.tick &+= 1
                met.used = state.loaded.tick
                state.statistics.revalidatedAnswers += 1
                kept = try body(state.index)
            }
            if let kept { return kept }
            state.withLock { $0.statistics.slowPaths += 1; $0.statistics.lookupRetries += attempt > 0 ? 1 : 0 }
            guard let partitions = try load(need, epoch: epoch, limit: limit) else { continue }
            var answer: R?
            try state.withLock { state in
                guard state.loaded.epoch == epoch else { return }
                if state.stamp == stamp {
                    state.loaded.tick &+= 1
                    state.loaded.remember(need, LoadedPartitions.MetNeed(partitions, searched: searched, used: state.loaded.tick))
                }
                answer = try body(state.index)
            }
            if let answer { return answer }
        }
        // Other writers kept moving the store: answer from one whole read.
        state.withLock { $0.statistics.wholeReads += 1 }
        return try body(try CacheIndex.read(from: store, deferringUnder: configuration.clouds.hosts))
    }

    /// Brings the loaded partitions to `stamp` (taken by the caller before): re-reads those the store
    /// names as changed since the index's revision, or drops them all when it cannot name them.
    /// Returns the epoch the index is then at (it changes with every revalidation).
    private func revalidate(to stamp: ChangeStamp) throws -> UInt64 {
        let (current, revision, epoch, loaded) = state.withLock { ($0.stamp, $0.revision, $0.loaded.epoch, $0.loaded.partitions) }
        if current == stamp { return epoch }
        // Only partitions read through the store can be loaded: it need not name the others.
        if current != nil, let revision,
           let changes = try (store as? any PartitionTrackingStore)?.partitionChanges(since: revision, readOrWrittenOnly: true) {
            var seen = Set<PartitionID>()
            let changed = changes.partitions.filter { loaded[$0] != nil && seen.insert($0).inserted }
            let reads = Self.inStoreOrder(zip(changed, try changed.isEmpty ? [] : store.readPartitions(changed).map(\.items)))
            return state.withLock { state in
                // Another thread revalidated meanwhile: its index is at least as new.
                guard state.loaded.epoch == epoch else { return state.loaded.epoch }
                var reRead = Set<PartitionID>()
                for (partition, items) in reads where state.loaded.partitions[partition] != nil {
                    state.load(partition, items: items)
                    reRead.insert(partition)
                }
                state.statistics.revalidations += 1
                state.statistics.partitionsReRead += reRead.count
                // Needs holding none of the partitions re-read still name the same partitions and
                // find them current. A searched need may name more now, whatever changed (even a
                // partition the store need not name, such as another account's first sign-in).
                state.statistics.metNeedsDropped += state.loaded.forgetNeeds(touching: reRead.union(changes.partitions), storeChanged: true)
                state.loaded.epoch &+= 1
                state.stamp = stamp
                state.revision = changes.revision
                return state.loaded.epoch
            }
        }
        // Taken before anything is read again, as in whole-store mode.
        let fresh = try (store as? any PartitionTrackingStore)?.partitionChanges(since: nil)?.revision
        return state.withLock { state in
            guard state.loaded.epoch == epoch else { return state.loaded.epoch }
            state.index = CacheIndex(items: [])
            state.statistics.revalidationsDroppingAll += 1
            state.statistics.metNeedsDropped += state.loaded.removeAll()
            state.loaded.epoch &+= 1
            state.stamp = stamp
            state.revision = fresh
            return state.loaded.epoch
        }
    }

    /// Reads the partitions of `partitions` the index lacks and adds them, unless the index was
    /// revalidated since `epoch` (then `false`: the reads may predate what it holds).
    private func ensureLoaded(_ partitions: [PartitionID], epoch: UInt64) throws -> Bool {
        var seen = Set<PartitionID>()
        let wanted = state.withLock { state in
            partitions.filter { state.loaded.partitions[$0] == nil && store.accessGroups.contains($0.accessGroup) && seen.insert($0).inserted }
        }
        // One batched read: a store over a network answers every partition in one round trip.
        let reads = Self.inStoreOrder(zip(wanted, try wanted.isEmpty ? [] : store.readPartitions(wanted).map(\.items)))
        return state.withLock { state in
            guard state.loaded.epoch == epoch else { return false }
            for (partition, items) in reads where state.loaded.partitions[partition] == nil {
                state.load(partition, items: items)
                state.statistics.partitionsLoaded += 1
            }
            return true
        }
    }

    /// Partitions read together, in the order their items were first added to the store (by their
    /// earliest creation date; in the order asked where the store records none), so that they are
    /// indexed in the order a whole read would have met them: answers that take the first of several
    /// matches (an account by a username two accounts share) do not depend on the order asked.
    static func inStoreOrder<Reads: Sequence>(_ reads: Reads) -> [(PartitionID, [StoreItem])] where Reads.Element == (PartitionID, [StoreItem]) {
        reads.enumerated()
            .map { (position: $0.offset, created: $0.element.1.lazy.compactMap(\.created).min() ?? .distantFuture, read: $0.element) }
            .sorted { ($0.created, $0.position) < ($1.created, $1.position) }
            .map(\.read)
    }

    /// Loads what `need` names and evicts down to `limit`; returns every partition it named (to
    /// mark as used when the need is met again, and to forget the need when one changes), or `nil`
    /// when the index was revalidated meanwhile.
    private func load(_ need: PartitionNeed, epoch: UInt64, limit: Int) throws -> [PartitionID]? {
        var wanted = try directPartitions(need)
        guard try ensureLoaded(wanted, epoch: epoch) else { return nil }
        // What the loaded accounts lead to: their usernames' legacy entries, a username's accounts.
        let further = state.withLock { expandedPartitions(need, index: $0.index) }
        wanted += further
        guard try ensureLoaded(further, epoch: epoch) else { return nil }
        let keep = Set(wanted)
        return state.withLock { state -> [PartitionID]? in
            guard state.loaded.epoch == epoch else { return nil }
            state.evict(toward: limit, keeping: keep)
            state.loaded.touch(wanted)
            // Those outside the store's access groups are never loaded, nor changed.
            return keep.filter { state.loaded.partitions[$0] != nil }.sorted()
        }
    }

    /// Every host of every known cloud, for lookups that name no environment.
    private var everyKnownHost: [String] {
        var hosts: [String] = []
        for cloud in configuration.clouds.clouds {
            for host in [cloud.preferredCache] + cloud.aliases where !hosts.contains(host.lowercased()) { hosts.append(host.lowercased()) }
        }
        return hosts
    }

    private func hosts(_ environment: String?) -> [String] {
        environment.map { configuration.clouds.aliases(for: $0) } ?? everyKnownHost
    }

    /// The partitions a need names before anything is loaded.
    private func directPartitions(_ need: PartitionNeed) throws -> [PartitionID] {
        let groups = store.accessGroups.all
        switch need {
        case .homeAccount(let id, let environment, let legacy, let metadata):
            let home = ItemKey.normalized(id)
            // Legacy entries are found by the account's usernames, which its records in any
            // environment may hold.
            let hosts = hosts(legacy ? nil : environment)
            var accounts = hosts.map { home + "-" + $0 }
            if metadata { accounts += hosts + [AccountMetadata.keyAccount] }
            if legacy { accounts.append("") }
            let named = groups.flatMap { group in accounts.map { PartitionID(accessGroup: group, account: $0) } }
            guard environment == nil || legacy else { return named }
            return named + (try foundPartitions(ofHome: home, legacy: legacy, appMetadata: metadata))
        case .username(let username):
            let legacy = LegacyCacheKey(authority: "", resource: nil, clientId: "", userId: username).account
            // The app metadata too: which family signs a legacy-only account in to an app.
            var partitions = groups.flatMap { group in ([legacy, "", AccountMetadata.keyAccount] + everyKnownHost).map { PartitionID(accessGroup: group, account: $0) } }
            if let found = try store.lookupKeyIndex?.partitions(withLookupKey: LookupKey.username(username)) {
                partitions += found
            } else {
                // No index to ask: find the accounts by reading everything once.
                let index = try CacheIndex.read(from: store, deferringUnder: configuration.clouds.hosts)
                for home in index.homeAccountIds(withUsername: username) {
                    partitions += index.accounts(homeAccountId: home).map { $0.identity.partition }
                }
                // A store that keeps lookup keys but has no index yet gets one, so the next
                // username lookup need not scan.
                backfillLookupKeysOverWholeStore()
            }
            return partitions
        case .appMetadata(let environment):
            return groups.flatMap { group in hosts(environment).map { PartitionID(accessGroup: group, account: $0) } }
        case .homeAccounts(let homes):
            var partitions = groups.map { PartitionID(accessGroup: $0, account: AccountMetadata.keyAccount) }
            for home in homes {
                partitions += try directPartitions(.homeAccount(home, environment: nil, legacy: false, metadata: false))
            }
            return partitions
        }
    }

    /// The partitions a need leads to once its direct ones are loaded.
    private func expandedPartitions(_ need: PartitionNeed, index: CacheIndex) -> [PartitionID] {
        let groups = store.accessGroups.all
        func legacyPartitions(ofHome home: String) -> [PartitionID] {
            let users = Set(index.accounts(homeAccountId: home).compactMap(\.username))
            return users.flatMap { user in
                groups.map { PartitionID(accessGroup: $0, account: LegacyCacheKey(authority: "", resource: nil, clientId: "", userId: user).account) }
            }
        }
        switch need {
        case .homeAccount(let id, _, let legacy, _):
            return legacy ? legacyPartitions(ofHome: ItemKey.normalized(id)) : []
        case .username(let username):
            var partitions: [PartitionID] = []
            for home in index.homeAccountIds(withUsername: username) {
                partitions += (try? directPartitions(.homeAccount(home, environment: nil, legacy: true))) ?? []
                partitions += legacyPartitions(ofHome: home)
            }
            return partitions
        case .appMetadata, .homeAccounts:
            return []
        }
    }

    /// The partitions a planned batch reads or writes: each it writes to, every alias of an account
    /// partition's environment (replaced access tokens may live there), and the account metadata.
    private func requiredPartitions(_ batch: [StoreOperation]) -> [PartitionID] {
        var partitions = store.accessGroups.all.map { PartitionID(accessGroup: $0, account: AccountMetadata.keyAccount) }
        var seen = Set(partitions)
        func add(_ partition: PartitionID) {
            if seen.insert(partition).inserted { partitions.append(partition) }
        }
        // A token response's items share one or two partitions: each is expanded to its aliases once.
        var expanded = Set<PartitionID>()
        for operation in batch {
            let partition: PartitionID
            switch operation {
            case .save(let item): partition = item.partition
            case .delete(let query):
                guard let identity = query.identity else { continue }
                partition = identity.partition
            default: continue
            }
            add(partition)
            guard expanded.insert(partition).inserted else { continue }
            for host in configuration.clouds.hosts(ending: partition.account) {
                let home = String(partition.account.utf8.dropLast(host.utf8.count + 1))!
                for alias in configuration.clouds.aliases(for: host) {
                    add(PartitionID(accessGroup: partition.accessGroup, account: home + "-" + alias))
                }
            }
        }
        return partitions
    }

    /// ``commitPlanned(keepingLookupKeys:_:)`` in partition mode (see
    /// `commitPlannedInLoadedPartitions`); then an app's account-metadata item the commit loaded is
    /// filed per account (see `fileLoadedAccountMetadata`).
    func commitPlannedInPartitions<Result>(
        keepingLookupKeys: Bool, need: PartitionNeed?, _ plan: (CacheIndex) throws -> (operations: [StoreOperation], result: Result)
    ) throws -> (batch: BatchResult, result: Result) {
        let committed = try commitPlannedInLoadedPartitions(keepingLookupKeys: keepingLookupKeys, need: need, plan)
        fileLoadedAccountMetadata()
        return committed
    }

    /// The plan runs on the loaded partitions, under the store's write lock, and only when they are
    /// current; a plan that turns out to touch partitions not loaded is dropped, they are loaded,
    /// and it runs again.
    ///
    /// On a busy store another writer's commit often lands between the revalidation and the plan
    /// (its invalidation moves the stamp): the first `freeRetries` such retries revalidate at once,
    /// without pausing or counting as one of the `partitionAttempts`, as do retries that load
    /// partitions the plan turned out to touch. Only a store that keeps moving past them gets the
    /// pauses, and in the end the whole read.
    func commitPlannedInLoadedPartitions<Result>(
        keepingLookupKeys: Bool, need: PartitionNeed?, _ plan: (CacheIndex) throws -> (operations: [StoreOperation], result: Result)
    ) throws -> (batch: BatchResult, result: Result) {
        guard case .partitions(let limit) = configuration.loading else { preconditionFailure("partition mode only") }
        let keys = keepingLookupKeys && store.lookupKeyIndex != nil
        var needed = store.accessGroups.all.map { PartitionID(accessGroup: $0, account: AccountMetadata.keyAccount) }
        var attempt = 0
        var free = 0
        while attempt < Self.partitionAttempts {
            pauseBeforeRetry(attempt)
            attempt += 1
            let epoch = try revalidate(to: try store.changeStamp())
            state.withLock { $0.statistics.slowPaths += 1 }
            if let need, try load(need, epoch: epoch, limit: limit) == nil { continue }
            guard try ensureLoaded(needed, epoch: epoch) else { continue }
            var output: Result?
            var batch: [StoreOperation] = []
            do {
                let result = try store.applyPlanned { stamp, _ in
                    let cached = state.withLock { state -> CacheIndex? in
                        guard state.stamp == stamp, state.loaded.epoch == epoch else { return nil }
                        if keys { state.index.ensurePartitionMembers() }
                        return state.index
                    }
                    guard var index = cached else { throw PlanRetry.stale }
                    let planned = try plan(index)
                    let missing = state.withLock { state in
                        requiredPartitions(planned.operations).filter { state.loaded.partitions[$0] == nil }
                    }
                    guard missing.isEmpty else { throw PlanRetry.missing(missing) }
                    output = planned.result
                    batch = planned.operations
                    if keys && needsLookupKeys(batch) { batch = index.withLookupKeys(batch) }
                    return batch
                }
                record(result, of: batch)
                return (result, output!)
            } catch PlanRetry.missing(let missing) {
                needed += missing
                state.withLock { $0.statistics.missingRetries += 1 }
                if free < Self.freeRetries { free += 1; attempt -= 1 }
            } catch PlanRetry.stale {
                state.withLock { $0.statistics.staleRetries += 1 }
                if free < Self.freeRetries { free += 1; attempt -= 1 }
            }
        }
        // Other writers kept moving the store: plan on all of it, as whole-store mode does.
        state.withLock { $0.statistics.wholeReads += 1 }
        var output: Result?
        var batch: [StoreOperation] = []
        let result = try store.applyPlanned { _, allItems in
            var index = CacheIndex(items: try allItems())
            let planned = try plan(index)
            output = planned.result
            batch = planned.operations
            if keys && needsLookupKeys(batch) { batch = index.withLookupKeys(batch) }
            return batch
        }
        record(result, of: batch)
        return (result, output!)
    }
}
