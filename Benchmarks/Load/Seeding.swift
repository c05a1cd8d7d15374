import CacheStore
import CacheStoreRedis
import CacheStoreSQLite
import Foundation
import RedisWire

/// Where a run's items go: a Redis deployment (standalone or cluster) under a prefix of the run's
/// own, or a SQLite file; payloads sealed with a fixed, public benchmark key, as in production.
struct LoadStore {
    static let key = "dG9rZW5jYWNoZSBiZW5jaG1hcmsga2V5LCBwdWJsaWM="  // "tokencache benchmark key, public"
    /// `redis://…`, `redis+unix://…` or `sqlite:PATH`.
    let spec: String
    let prefix: String

    var isRedis: Bool { !spec.hasPrefix("sqlite:") }

    func redisConfiguration(tracking: Bool) throws -> RedisConfiguration {
        var configuration = try RedisConfiguration(parsing: spec)
        configuration.prefix = prefix
        configuration.keySource = .environment(name: "TOKENCACHE_LOAD_KEY")
        configuration.tracking = tracking
        configuration.commandTimeoutMilliseconds = 60_000
        return configuration
    }

    func open(tracking: Bool) throws -> any ItemStore {
        let groups = try AccessGroups([LoadUsers.group])
        guard isRedis else { return try SQLiteStore(path: String(spec.dropFirst("sqlite:".count)), accessGroups: groups) }
        return try RedisStore(configuration: try redisConfiguration(tracking: tracking), accessGroups: groups,
                              environment: ["TOKENCACHE_LOAD_KEY": Self.key])
    }

    func nodes() throws -> RedisNodes { try RedisNodes(try redisConfiguration(tracking: false).endpoint) }

    func blobKey(_ user: Int) -> Data { Data("\(prefix):blob:\(LoadUsers.homeAccountId(user))".utf8) }
}

/// Seeds users `range` into the store through its batch API (and their blobs with pipelined `SET`s
/// when `blobs`); returns the shared items of their sign-ins, for the driver to merge and write once.
func seed(_ target: LoadStore, users range: Range<Int>, blobs: Bool) throws -> SharedItems {
    let store = try target.open(tracking: false)
    let nodes = blobs ? try target.nodes() : nil
    var shared = SharedItems()
    var batch: [StoreOperation] = []
    var sets: [[Data]] = []
    // Redis commits partition by partition whatever the batch; SQLite commits a batch at once.
    let batchSize = target.isRedis ? 400 : 20_000
    func flush() throws {
        if !batch.isEmpty { try store.apply(batch) }
        if let nodes, !sets.isEmpty {
            for case .error(let message) in try nodes.pipeline(sets) { throw LoadError.seeding("SET of a blob failed: \(message)") }
        }
        batch.removeAll(keepingCapacity: true)
        sets.removeAll(keepingCapacity: true)
    }
    for user in range {
        let signIn = try SignIn(user: user, blob: blobs)
        batch += signIn.own
        for item in signIn.shared { try shared.merge(item) }
        if let blob = signIn.blob { sets.append([Data("SET".utf8), target.blobKey(user), blob]) }
        if batch.count >= batchSize { try flush() }
    }
    try flush()
    return shared
}

/// Seeds users `range` with `processes` seeder processes (this executable's `seed` command; none:
/// in this process), then writes the merged shared items in one batch. Returns the seconds it took.
func seedInProcesses(_ target: LoadStore, users range: Range<Int>, blobs: Bool, processes: Int, scratch: String) throws -> Double {
    let start = monotonicNanoseconds()
    // Opened once first: a new store's lookup-key index is marked complete when it is first opened.
    var shared = SharedItems()
    if !range.isEmpty && processes == 0 {
        // In this process (for tools that follow no child, such as valgrind).
        _ = try target.open(tracking: false)
        shared = try seed(target, users: range, blobs: blobs)
    } else if !range.isEmpty {
        _ = try target.open(tracking: false)
        let count = max(1, min(processes, range.count / 100))
        let slice = (range.count + count - 1) / count
        var children: [Child] = []
        for index in 0..<count {
            let from = range.lowerBound + index * slice
            let to = min(range.upperBound, from + slice)
            guard from < to else { continue }
            let file = "\(scratch)/shared-\(index)"
            children.append(try Child.spawn(["seed", target.spec, target.prefix, String(from), String(to), blobs ? "blobs" : "-", file]))
        }
        for (index, child) in children.enumerated() {
            try child.wait("seeder \(index)")
            try shared.merge(try SharedItems.decoded(try Data(contentsOf: URL(fileURLWithPath: "\(scratch)/shared-\(index)"))))
        }
    }
    try mergeShared(shared, into: target)
    return Double(monotonicNanoseconds() - start) / 1e9
}

/// Writes shared items over what the store holds (merged with it, as sign-ins would have).
func mergeShared(_ shared: SharedItems, into target: LoadStore) throws {
    guard !shared.isEmpty else { return }
    let store = try target.open(tracking: false)
    var merged = SharedItems()
    for item in try shared.items() {
        if let stored = try store.item(item.identity) { try merged.merge(stored) }
        try merged.merge(item)
    }
    try store.apply(try merged.items().map(StoreOperation.save))
}
