import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import TokenCacheSchema

/// The token-cache engine: the unified MSAL/ADAL cache on top of an item store.
///
/// It saves token responses as the unified-schema items MSAL ObjC, ADAL 2.7+ and MSAL.NET on iOS
/// write, and answers the lookups an auth library makes — access tokens, refresh and family refresh
/// tokens, ID tokens, accounts — from an in-memory index of decoded items. Before each operation it
/// compares the store's change stamp with the index's; only when another writer (this process or
/// another) committed since does it re-read the store, so a warm lookup touches neither the store
/// nor a JSON decoder.
///
/// Reads cover every access group the store was opened for; writes go to
/// ``Configuration/writeAccessGroup`` (by default the store's first group).
///
/// Safe to use from any thread.
public final class TokenCache: Sendable {
    /// How the engine behaves.
    public struct Configuration: Sendable {
        /// Where new items go; `nil` means the store's primary access group.
        public var writeAccessGroup: String?
        /// An access token within this many seconds of expiry is treated as expired (MSAL: 300).
        public var expirationBuffer: Int64
        /// The offline environment alias table.
        public var clouds: CloudAliases
        /// Save family tokens as one `FamilyRefreshToken` (2008) item instead of a family-keyed
        /// refresh token plus the app's own (MSAL's newer single-FRT model). Off by default, as in MSAL.
        public var useSingleFamilyRefreshToken: Bool
        /// Also write legacy ADAL entries on save, as ADAL ≥ 2.7 does, so apps still on ADAL get single
        /// sign-on: a multi-resource refresh token, a family refresh token (`foci-<id>`) for family
        /// members, and an access token when the request names a v1 resource. Off by default, as
        /// MSAL never writes legacy entries.
        public var writesLegacyADALItems: Bool
        /// Written into the wipe record as the app that removed tokens.
        public var applicationName: String
        /// The time source; tests may fix it.
        public var clock: @Sendable () -> Date
        /// What the engine keeps in memory: the whole store (the default) or the partitions lookups
        /// touched, up to a limit (see ``Loading``).
        public var loading: Loading

        public init(
            writeAccessGroup: String? = nil,
            expirationBuffer: Int64 = 300,
            clouds: CloudAliases = .known,
            useSingleFamilyRefreshToken: Bool = false,
            writesLegacyADALItems: Bool = false,
            applicationName: String = ProcessInfo.processInfo.processName,
            clock: @escaping @Sendable () -> Date = Date.init,
            loading: Loading = .wholeStore
        ) {
            self.writeAccessGroup = writeAccessGroup
            self.expirationBuffer = expirationBuffer
            self.clouds = clouds
            self.useSingleFamilyRefreshToken = useSingleFamilyRefreshToken
            self.writesLegacyADALItems = writesLegacyADALItems
            self.applicationName = applicationName
            self.clock = clock
            self.loading = loading
        }
    }

    public let store: any ItemStore
    public let configuration: Configuration
    /// The access group new items are written to.
    public let writeAccessGroup: String

    struct State {
        var stamp: ChangeStamp?
        var index = CacheIndex(items: [])
        /// The store's partition revision the index has caught up to (every commit before it is in
        /// the index); `nil` when the store cannot tell which partitions changed.
        var revision: ChangeStamp?
        /// In partition loading mode: which partitions the index holds, and what lookups need.
        var loaded = LoadedPartitions()
        var statistics = PartitionStatistics()
        /// In partition loading mode: the account-metadata items (MSAL ObjC's per-app 5001 items)
        /// as they were when this engine last filed their entries per account, so an item that
        /// keeps entries no account record claims is not filed again until it changes.
        var filedMetadata: [ItemIdentity: AccountMetadata] = [:]
    }

    let state = StateLock(State())

    /// What partition loading mode did so far (all zero in whole-store mode).
    @_spi(Statistics) public var partitionStatistics: PartitionStatistics { state.withLock { $0.statistics } }

    /// Creates an engine over `store`.
    ///
    /// - Throws: ``CacheStoreError/accessGroupNotAllowed(_:allowed:)`` when the configured write
    ///   group is not one of the store's.
    public init(store: any ItemStore, configuration: Configuration = Configuration()) throws {
        let group = configuration.writeAccessGroup ?? store.accessGroups.primary
        try store.accessGroups.check(group)
        self.store = store
        self.configuration = configuration
        self.writeAccessGroup = group
    }

    /// Runs `body` on the index for the store's current content: in place, under the engine's lock,
    /// when no writer committed since it was built (the hot path: no copy, no store read); after
    /// re-reading the store otherwise. `body` must not call back into the engine.
    func withIndex<R>(_ body: (CacheIndex) throws -> R) throws -> R {
        // Partition mode: a call that may need any partition reads them all (not a hot path).
        if case .partitions = configuration.loading { return try body(try CacheIndex.read(from: store, deferringUnder: configuration.clouds.hosts)) }
        var tombstones: [ItemIdentity] = []
        // A failure only means they are met again.
        defer { if !tombstones.isEmpty { _ = try? commit(tombstones.map { .delete($0.query) }) } }
        var caughtUp = false
        var reads = 0
        while true {
            let stamp = try store.changeStamp()
            var result: R?
            var missed: NotedHomes.Noted?
            try state.withLock { state in
                guard state.stamp == stamp else { return }
                let answer: R
                do {
                    answer = try body(state.index)
                } catch {
                    _ = state.index.accessTokenMisses?.take()
                    throw error
                }
                // The answer lacks access tokens the index has not read: read them, ask again.
                if let noted = state.index.accessTokenMisses?.take() {
                    missed = noted
                    return
                }
                result = answer
                // Access tokens the call read undecoded are moved into the index, decoded, for the
                // calls after it; tombstones among them are deleted, as when a whole read meets them.
                if let used = state.index.deferredUse.take() {
                    for home in used.homes { tombstones += state.index.absorbDeferred(homeAccountId: home) }
                }
            }
            if let result { return result }
            if let missed, reads < 4 {
                try readAccessTokens(missed, round: reads)
                reads += 1
                continue
            }
            if caughtUp { break }
            // Brought up to date, then answered as above (unless another writer was quicker again).
            caughtUp = true
            _ = try currentIndex()
        }
        return try answerOnCopy(body)
    }

    /// The index for the store's current content, re-read only when another writer committed.
    func currentIndex() throws -> CacheIndex {
        if case .partitions = configuration.loading { return try CacheIndex.read(from: store, deferringUnder: configuration.clouds.hosts) }
        let stamp = try store.changeStamp()
        if let index = state.withLock({ $0.stamp == stamp ? $0.index : nil }) {
            return index
        }
        let index: CacheIndex
        if let caughtUp = try catchUp(to: stamp) {
            index = caughtUp
        } else {
            // Stamped with the stamp taken *before* the read: a commit racing with the read changes
            // the stamp again, and the next call re-reads. The revision to catch up from later is
            // taken before the read too.
            let revision = try (store as? any PartitionTrackingStore)?.partitionChanges(since: nil)?.revision
            index = try CacheIndex.read(from: store, deferringUnder: configuration.clouds.hosts, leavingOutAccessTokens: true)
            state.withLock { state in
                state.stamp = stamp
                state.index = index
                state.revision = revision
            }
            backfillLookupKeysIfNeeded()
            if index.holdsEntriesToFile {
                // MSAL ObjC's per-app item of a store written before per-account items, or imported:
                // its entries move to their accounts' partitions (once; many processes may race,
                // each planning under the store's write lock). A failure is retried on the next read.
                _ = try? store.fileAccountMetadata()
            }
        }
        if !index.tombstones.isEmpty {
            // MSAL deletes tombstoned credentials when it meets them; so do we. A failure here only
            // means they are met again next time.
            _ = try? commit(index.tombstones.map { .delete($0.query) })
        }
        return index
    }

    /// Applies `batch` to the store and, when nothing else was committed since the index was built,
    /// to the index too, so the engine's own writes never force a re-read. A batch that changes
    /// account records goes through ``commitPlanned(keepingLookupKeys:_:)`` when the store keeps
    /// lookup keys, so the keys it carries are planned on the store's current content.
    @discardableResult
    func commit(_ batch: [StoreOperation]) throws -> BatchResult {
        if needsLookupKeys(batch) { return try commitPlannedBatch(keepingLookupKeys: true) { _ in (batch, ()) }.batch }
        let result = try store.apply(batch)
        record(result, of: batch)
        return result
    }

    /// Plans a batch on the current index and commits it with no other commit in between (the
    /// store's ``ItemStore/applyPlanned(_:)``: under its write lock). Writes that read-modify-write
    /// shared items (an app's account metadata, holding every account's sign-in state) go through
    /// here, so two writers — threads of this process or other processes — never undo each other's
    /// changes. When the store keeps lookup keys, the batch carries those of every partition whose
    /// account records it changes.
    /// In partition mode the plan sees the partitions `need` names and those its batch turns out to
    /// touch (see `commitPlannedInPartitions`).
    func commitPlanned<Result>(
        keepingLookupKeys: Bool = true, need: PartitionNeed? = nil,
        _ plan: (CacheIndex) throws -> (operations: [StoreOperation], result: Result)
    ) throws -> Result {
        try commitPlannedBatch(keepingLookupKeys: keepingLookupKeys, need: need, plan).result
    }

    func commitPlannedBatch<Result>(
        keepingLookupKeys: Bool, need: PartitionNeed? = nil, _ plan: (CacheIndex) throws -> (operations: [StoreOperation], result: Result)
    ) throws -> (batch: BatchResult, result: Result) {
        if case .partitions = configuration.loading { return try commitPlannedInPartitions(keepingLookupKeys: keepingLookupKeys, need: need, plan) }
        let keys = keepingLookupKeys && store.lookupKeyIndex != nil
        // Another writer's commit between the catch-up and the store's write lock — what happens
        // whenever two processes save at once: the second waits for the lock, then finds a newer
        // store — leaves the index behind the plan's stamp. The attempt then writes nothing, the
        // index catches up outside the lock (reading what changed, where the store can say), and the
        // plan runs again. Only a store that keeps moving gets planned on a read of all of it, under
        // the lock, on the last attempt.
        let attempts = 5
        var attempt = 1
        var reads = 0
        while true {
            var output: Result?
            var batch: [StoreOperation] = []
            _ = try currentIndex()
            let result: BatchResult
            do {
                result = try store.applyPlanned { stamp, allItems in
                    // The index is only a local here, gone before `record` patches the engine's copy in place.
                    var index: CacheIndex
                    var tombstones: [StoreOperation] = []
                    let cached = state.withLock { state -> CacheIndex? in
                        guard state.stamp == stamp else { return nil }
                        // Built in place, once: the lookup keys are planned from it.
                        if keys { state.index.ensurePartitionMembers() }
                        return state.index
                    }
                    if let cached {
                        index = cached
                        // This plan's own notes: it runs outside the engine's lock.
                        if index.accessTokenMisses != nil { index.accessTokenMisses = NotedHomes() }
                    } else if attempt < attempts {
                        throw StalePlan()
                    } else {
                        index = CacheIndex(items: try allItems())
                        // Tombstoned credentials go with this batch (see currentIndex).
                        tombstones = index.tombstones.map { .delete($0.query) }
                        let fresh = index
                        state.withLock { state in
                            // The revision stays: every commit before it is in this newer read too.
                            state.stamp = stamp
                            state.index = fresh
                        }
                    }
                    let planned = try plan(index)
                    if let missed = index.accessTokenMisses?.take() { throw MissingAccessTokens(missed: missed) }
                    output = planned.result
                    batch = tombstones + planned.operations
                    if keys && needsLookupKeys(batch) { batch = index.withLookupKeys(batch) }
                    return batch
                }
            } catch is StalePlan {
                attempt += 1
                continue
            } catch let missing as MissingAccessTokens {
                try readAccessTokens(missing.missed, round: reads)
                reads += 1
                // The third read takes every access token; a store moving under every one of them
                // gets planned on a whole read in the end, as above.
                if reads > 3 { attempt += 1 }
                continue
            }
            record(result, of: batch)
            return (result, output!)
        }
    }

    /// Thrown out of a plan whose stamp the index has not caught up with: the store writes nothing.
    private struct StalePlan: Error {}

    func record(_ result: BatchResult, of batch: [StoreOperation]) {
        if let commit = result.commit {
            let partitionMode = if case .partitions = configuration.loading { true } else { false }
            state.withLock { state in
                guard state.stamp == commit.base else { return }
                state.index.apply(batch)
                // Partition mode: a partition the batch wrote to but the index does not hold whole
                // is not kept in part.
                if partitionMode { state.dropPartial(touchedBy: batch) }
                state.stamp = commit.result
            }
        }
    }

    /// The current time in whole seconds, as the schema stores it.
    var now: Int64 { UnixTime.clampedSeconds(configuration.clock()) }

    /// How many damaged items (forged, altered or unauthenticated rows; see `DamagedItem`) the store
    /// skipped when the engine last read all of it (access tokens left unread at open are read
    /// first: not a hot-path call). They are never returned; everything else keeps serving. A
    /// linked library can log the count; `tokencache doctor` lists them and `tokencache repair`
    /// removes them.
    public func damagedItemCount() throws -> Int {
        _ = try completeIndex()
        return (store as? any DamageReportingStore)?.damagedItemCount() ?? 0
    }

    /// Items the engine met but could not read (malformed payloads), with where they are; access
    /// tokens left unread at open are read first (not a hot-path call).
    ///
    /// They are skipped by every lookup, as MSAL skips them; `tokencache doctor` reports them.
    public func unreadableItems() throws -> [SchemaError] {
        try completeIndex().allUnreadable.values.sorted { $0.description < $1.description }
    }
}
