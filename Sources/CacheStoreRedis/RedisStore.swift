import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A backend over Redis 7 (standalone or Redis Cluster), through hiredis.
///
/// **Layout.** Each *partition* — the items of one (access group, account attribute) — is one hash
/// whose key carries a hash tag, so it lives in one cluster slot; a set per access group lists its
/// partitions; a counter is the store's revision (keys in ``RedisLayout`` and docs/redis.md).
///
/// **Atomicity.** A batch's changes to one partition are one `MULTI`/`EXEC` transaction under
/// `WATCH` of the partition as read: written, and the revision bumped, all or nothing. A batch touching several
/// partitions is applied partition by partition, in the order the batch first touches them; if it
/// fails part way, the partitions already committed stay committed, the others are unchanged, and
/// ``RedisError/partiallyApplied(committedPartitions:of:cause:)`` says so. Saves and deletes are
/// idempotent, so running the batch again converges. A full read retries until the store's revision
/// is the same before and after it, so on a standalone server it sees whole batches only.
///
/// **Timeouts and failover.** Each call has one deadline, the configured timeout, for all its round
/// trips and retries (``RedisCallDeadline``). In a cluster a call that meets a failover reads the
/// slot map again and retries within it (``RedisRouter``). With `wait=N` a write call also needs N
/// replicas to confirm its writes, else fails with ``RedisError/notReplicated(endpoint:acknowledged:required:)``.
///
/// **Invalidation.** With tracking (the default), other processes' changes are pushed to this one
/// (``RedisTracking``): ``changeStamp()`` and partition reads are then answered from memory until a
/// change arrives. Without it, or while it is broken, every call revalidates with the server.
///
/// **Payloads** are sealed with ``PayloadEnvelope`` under the group's data key from the spec's key
/// source, never stored in Redis.
public final class RedisStore: ItemStore {
    public let accessGroups: AccessGroups
    public let configuration: RedisConfiguration
    let layout: RedisLayout
    let keys: RedisDataKeys
    let maximumDataSize: Int
    let tracking: RedisTracking?
    /// `tracking` again, for the warm path, used without a retain: the tracking object is also
    /// referenced weakly (by the router's callbacks and its listeners), which sends every retain and
    /// release of it through the slow side-table path (12% of a warm lookup). Safe because
    /// `tracking` keeps the object alive as long as the store.
    private let trackingUnretained: Unmanaged<RedisTracking>?

    struct State {
        let router: RedisRouter
        var lastOrder: UInt64 = 0
        var lastRepair = Date.distantPast
        /// Damaged items the most recent full read skipped.
        var damagedInLastFullRead = 0
        /// Groups holding a legacy lookup-key index (found at open; nothing adds to one since).
        var legacyLookupGroups: Set<String> = []
        /// The tracking generation and slot-map version at which tracking was last found healthy:
        /// while both are unchanged it still is (every change to what it depends on moves one).
        var healthyAt: (generation: UInt64, mapVersion: UInt64)?

        /// Whether tracking was found healthy at `generation` and the current slot map.
        func stillHealthy(generation: UInt64) -> Bool {
            guard let last = healthyAt else { return false }
            return last.generation == generation && last.mapVersion == router.mapVersion && !router.needsDiscovery
        }
    }

    let state: CallLock
    /// Tests inject failures here: called before each partition commit with its index in the batch.
    let faultInjection = StateLock<(@Sendable (Int) throws -> Void)?>(nil)

    /// Opens the store: reads the data keys, connects, and finds out whether the server is a cluster.
    ///
    /// - Throws: ``RedisError`` when the server cannot be reached or logs us out, or the key source
    ///   cannot give a key; ``EncryptionError`` for an unusable key file.
    public init(
        configuration: RedisConfiguration, accessGroups: AccessGroups,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        maximumDataSize: Int = StoreLimits.maximumDataSize
    ) throws {
        self.configuration = configuration
        self.accessGroups = accessGroups
        self.maximumDataSize = maximumDataSize
        self.layout = RedisLayout(prefix: configuration.prefix)
        self.keys = try RedisDataKeys(configuration.keySource, groups: accessGroups, environment: environment)
        let password = configuration.resolvedPassword(environment: environment)
        let router = RedisRouter(configuration: configuration, password: password)
        if configuration.tracking {
            let tracking = RedisTracking(configuration: configuration, password: password, layout: layout)
            router.onConnect = { [weak tracking] endpoint, connection in tracking?.enable(endpoint, connection) }
            router.onDrop = { [weak tracking] endpoint in tracking?.dropped(endpoint) }
            self.tracking = tracking
            self.trackingUnretained = Unmanaged.passUnretained(tracking)
        } else {
            self.tracking = nil
            self.trackingUnretained = nil
        }
        self.state = CallLock(State(router: router))
        try state.withLock { state throws(RedisError) in
            for endpoint in try state.router.masters() { _ = try state.router.connection(endpoint) }
            try markNewGroupsComplete(&state)
        }
    }

    /// A group that has never held an item (no group index) has a complete, empty lookup-key index:
    /// every writer of this version sets keys with its items. Marked at open, so a new store answers
    /// ``partitions(withLookupKey:)`` from the start; a group written before the index existed stays
    /// unmarked until a writer declares it (``StoreOperation/declareLookupKeysComplete(accessGroup:)``).
    /// Also notes the groups that hold a legacy lookup-key index (see ``RedisLayout``).
    private func markNewGroupsComplete(_ state: inout State) throws(RedisError) {
        let groups = accessGroups.all
        var requests: [(key: Data, command: [Data])] = []
        for group in groups {
            requests.append((layout.lookupCompleteKey(group), [Data("EXISTS".utf8), layout.lookupCompleteKey(group)]))
            requests += layout.legacyLookupBucketKeys(group: group).map { ($0, [Data("EXISTS".utf8), $0]) }
        }
        let replies = try state.router.runEach(requests, operation: "EXISTS lookup-keys complete")
        let stride = 1 + RedisLayout.legacyLookupBuckets
        var unmarked: [String] = []
        for (index, group) in groups.enumerated() {
            if replies[index * stride] == .integer(0) { unmarked.append(group) }
            if replies[(index * stride + 1)..<((index + 1) * stride)].contains(where: { $0 != .integer(0) }) {
                state.legacyLookupGroups.insert(group)
            }
        }
        guard !unmarked.isEmpty else { return }
        // Unmarked groups: marked when none of their group-index sets exists.
        let indexKeys = unmarked.map { layout.groupIndexKeys(group: $0) }
        let indexReplies = try state.router.runEach(
            indexKeys.flatMap { $0.map { ($0, [Data("EXISTS".utf8), $0]) } }, operation: "EXISTS group index")
        var marks: [(key: Data, command: [Data])] = []
        var position = 0
        for (group, keys) in zip(unmarked, indexKeys) {
            let held = indexReplies[position..<(position + keys.count)].contains { $0 != .integer(0) }
            position += keys.count
            guard !held else { continue }
            let key = layout.lookupCompleteKey(group)
            marks.append((key, [Data("SET".utf8), key, Data("1".utf8), Data("NX".utf8)]))
        }
        if !marks.isEmpty { _ = try state.router.runEach(marks, operation: "SET lookup-keys complete") }
    }

    // MARK: - ItemStore

    public func items(matching query: ItemQuery) throws -> [StoreItem] {
        try accessGroups.check(query)
        if let group = query.accessGroup, let account = query.account {
            let partition = layout.partition(group: group, account: account)
            return try state.withLock { state throws in
                try cachedOrRead(partition, &state).items.filter(query.matches)
            }
        }
        return try state.withLock { state throws in
            try readAll(groups: query.accessGroup.map { [$0] } ?? accessGroups.all, &state).filter(query.matches)
        }
    }

    public func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws {
        let size = max(1, chunkSize)
        try state.withLock { state throws in
            let items = try readAll(groups: accessGroups.all, &state)
            for start in stride(from: 0, to: items.count, by: size) {
                receive(Array(items[start..<min(items.count, start + size)]))
            }
        }
    }

    public func changeStamp() throws -> ChangeStamp {
        try state.withLock { state throws(RedisError) in try stamp(&state) }
    }

    /// The items of one partition and its revision (the partition's own `.rev`, 0 when it is empty):
    /// one read, or none while tracking says the cached copy is current. Writes to other partitions
    /// leave the revision unchanged.
    public func readPartition(accessGroup: String, account: String) throws -> PartitionRead {
        try accessGroups.check(accessGroup)
        let partition = layout.partition(group: accessGroup, account: account)
        return try state.withLock { state throws in
            let cached = try cachedOrRead(partition, &state)
            return PartitionRead(items: cached.items, revision: ChangeStamp(cached.revision))
        }
    }

    /// ``readPartition(accessGroup:account:)`` for each: those tracking vouches for from memory, the
    /// others in one pipeline per node (one round trip on a standalone server).
    public func readPartitions(_ partitions: [PartitionID]) throws -> [PartitionRead] {
        for partition in partitions { try accessGroups.check(partition.accessGroup) }
        let keys = partitions.map { layout.partition(group: $0.accessGroup, account: $0.account) }
        return try state.withLock { state throws in
            try cachedOrRead(keys, &state).map { PartitionRead(items: $0.items, revision: ChangeStamp($0.revision)) }
        }
    }

    /// Round trips to the servers so far (one per pipeline sent to a node), by what they did: for
    /// benchmarks and diagnosis. Shared through `@_spi(Statistics)`; not part of the store API.
    @_spi(Statistics) public var roundTrips: [String: Int] {
        state.withLock { $0.router.roundTrips }
    }

    /// Whether other processes' changes currently reach this store without asking the server.
    public var isTrackingHealthy: Bool {
        guard let tracking else { return false }
        let masters = state.withLock { state in (try? state.router.masters()) ?? [] }
        return !masters.isEmpty && tracking.isHealthy(masters: masters)
    }

    // MARK: - Stamps

    /// `(store revision, tracking generation)`: the revision read from memory while tracking is
    /// healthy, from the server otherwise.
    func stamp(_ state: inout State) throws(RedisError) -> ChangeStamp {
        // The warm path: a cached revision, at a generation and slot map tracking was found healthy at.
        if let unretained = trackingUnretained {
            let (cached, generation) = unretained._withUnsafeGuaranteedRef { tracking in
                tracking.shared.withLock { ($0.cachedRevision, $0.generation) }
            }
            if let cached, state.stillHealthy(generation: generation) { return ChangeStamp(cached, generation) }
        }
        guard let tracking, try healthy(&state) else {
            let generation = tracking?.shared.withLock { $0.generation } ?? 0
            return ChangeStamp(try readRevision(&state), generation)
        }
        let (cached, generation) = tracking.shared.withLock { ($0.cachedRevision, $0.generation) }
        if let cached { return ChangeStamp(cached, generation) }
        let revision = try readRevision(&state)
        tracking.shared.withLock { shared in
            if shared.generation == generation {
                shared.cachedRevision = revision
                shared.revisionConfirmed = true
            }
        }
        return ChangeStamp(revision, generation)
    }

    func readRevision(_ state: inout State) throws(RedisError) -> UInt64 {
        let reply = try state.router.run([Data("GET".utf8), layout.revisionKey], key: layout.revisionKey, operation: "GET revision")
        switch reply {
        case .null: return 0
        case .string(let data):
            guard let value = UInt64(String(decoding: data, as: UTF8.self)) else {
                throw .corruptRecord(key: String(decoding: layout.revisionKey, as: UTF8.self), reason: "not a number")
            }
            return value
        default:
            throw .unexpectedReply(endpoint: configuration.endpoint.description, operation: "GET revision", got: reply.typeName)
        }
    }

    /// Whether tracking covers every master now; when it does not, tries to set it up again (at most
    /// once a second).
    func healthy(_ state: inout State) throws(RedisError) -> Bool {
        guard let tracking else { return false }
        // Enabling or losing tracking, a listener or a connection bumps the generation, and a new
        // slot map the map version: unchanged, the last verdict holds (the warm path's shortcut).
        let generation = tracking.shared.withLock { $0.generation }
        if state.stillHealthy(generation: generation) { return true }
        let masters = try state.router.masters()
        if tracking.isHealthy(masters: masters) {
            state.healthyAt = (generation, state.router.mapVersion)
            return true
        }
        guard Date().timeIntervalSince(state.lastRepair) >= 1 else { return false }
        state.lastRepair = Date()
        for endpoint in masters {
            guard let connection = try? state.router.connection(endpoint) else { continue }
            if !tracking.isHealthy(masters: [endpoint]) { tracking.enable(endpoint, connection) }
        }
        return tracking.isHealthy(masters: masters)
    }

    /// A new insertion order: a nanosecond clock, kept increasing within the process.
    func nextOrder(_ state: inout State) -> UInt64 {
        let clock = UInt64(Date().timeIntervalSince1970 * 1e9)
        state.lastOrder = max(state.lastOrder &+ 1, clock)
        return state.lastOrder
    }
}
