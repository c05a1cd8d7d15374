import Benchmark
import CacheStore
import CacheStoreMemory
import CacheStoreRedis
import Foundation
import RedisWire
import TokenCache
import TokenCacheInterchange

/// The Redis benchmarks, registered when `TOKENCACHE_BENCH_REDIS` gives a store spec (CI starts a
/// server with scripts/redis-servers.sh). The dataset is copied into Redis once per hour under the
/// prefix `tokencache-bench-HOUR` (payloads sealed with a fixed benchmark key), with each
/// partition's usernames as lookup keys, and — for the baseline users pick today — one MSAL JSON
/// blob per user under `tokencache-bench-HOUR:blob:HOME_ACCOUNT_ID`.
func registerRedisBenchmarks(_ dataset: Dataset) {
    guard let spec = ProcessInfo.processInfo.environment["TOKENCACHE_BENCH_REDIS"], !spec.isEmpty else { return }
    let bench: RedisBench
    do {
        bench = try RedisBench(spec: spec, dataset: dataset)
    } catch {
        fatalError("cannot set up the Redis benchmarks on \(spec): \(error)")
    }
    let queries = dataset.exactQueries
    let usernames = dataset.accounts.map { $0.username.lowercased() }
    if let worker = ProcessInfo.processInfo.environment["TOKENCACHE_BENCH_REDIS_WORKER"] {
        runLoadWorker(bench, dataset, worker)
    }
    let one = Benchmark.Configuration(scalingFactor: .one)
    // Opened on the first (warm-up) run of the benchmark that uses them, in its own process: the
    // harness runs each benchmark in a process of its own, and opening is not what is measured.
    let coldStore = Once { try bench.open(tracking: false) }
    let engine = Once { try TokenCache(store: try bench.open()) }
    let otherEngine = Once { try TokenCache(store: try bench.open()) }
    let client = Once { try bench.client() }

    // What the engine's partition mode does on a cold partition, at the store level: the username's
    // partitions from the lookup-key index, then those partitions read together (one pipeline of
    // HGETALLs, payloads opened). Tracking off, so no read is served from the store's own cache.
    let coldStoreRotation = Rotation()
    Benchmark("redis: cold partition lookup", configuration: one) { benchmark in
        let store = try coldStore.get()
        for _ in benchmark.scaledIterations {
            let index = coldStoreRotation.next(by: 7, in: usernames.count)
            blackHole(try store.readPartitions(try store.partitions(withLookupKey: usernames[index]) ?? []))
        }
    }

    // The same through the engine, as a server answers a user it has not seen lately: partition
    // mode with room for a few accounts, so each lookup (one token of each account, stride 7 over
    // the accounts) finds the account's partitions gone from the engine's memory, reads them (by
    // home account: its partitions under every alias, one pipeline), decodes and indexes them, and
    // answers. Tracking off, so the store holds no copies either, and each lookup also revalidates.
    //
    // Only accounts the Redis copy holds are asked for: the queries come from the dataset's SQLite
    // file, which the save benchmarks add accounts to after the copy was made (a fresh server's
    // first run used to crash here on such an account).
    let coldEngine = Once { () throws -> (TokenCache, [AccessTokenQuery]) in
        let cache = try TokenCache(store: try bench.open(tracking: false), configuration: .init(loading: .partitions(limit: 64)))
        var seenHomes = Set<String>()
        let asked = try queries.filter { seenHomes.insert($0.homeAccountId).inserted }.filter { try cache.accessToken($0) != nil }
        guard !asked.isEmpty else { throw RedisBenchError.nothingToAsk }
        return (cache, asked)
    }
    let coldEngineRotation = Rotation()
    Benchmark("redis: cold partition lookup, through the engine", configuration: one) { benchmark in
        let (cache, asked) = try coldEngine.get()
        for _ in benchmark.scaledIterations {
            let index = coldEngineRotation.next(by: 7, in: asked.count)
            guard try cache.accessToken(asked[index]) != nil else { fatalError("a cold lookup found no token it found before") }
        }
    }

    Benchmark("redis: warm lookup") { benchmark in
        let cache = try engine.get()
        var index = 0
        for _ in benchmark.scaledIterations {
            index = (index &+ 7) % queries.count
            blackHole(try cache.accessToken(queries[index]))
        }
    }

    // As for the SQLite saves: each response saved once, untimed, so the timed saves are of users
    // the store knows, on a fresh server too.
    let savesKnown = Once { () throws -> Void in
        let cache = try engine.get()
        for (response, request) in dataset.saves { try cache.save(response, for: request) }
    }
    let saveRotation = Rotation()
    Benchmark("redis: save token response", configuration: one) { benchmark in
        try savesKnown.get()
        let cache = try engine.get()
        for _ in benchmark.scaledIterations {
            let index = saveRotation.next(by: 1, in: dataset.saves.count)
            let (response, request) = dataset.saves[index]
            blackHole(try cache.save(response, for: request))
        }
    }

    // From the start of a save in one engine until another engine's store reports a new stamp (the
    // invalidation pushed through CLIENT TRACKING), both on the same server.
    let invalidationRotation = Rotation()
    Benchmark("redis: invalidation seen by another engine", configuration: one) { benchmark in
        try savesKnown.get()
        let writer = try engine.get()
        let reader = try otherEngine.get()
        for _ in benchmark.scaledIterations {
            let index = invalidationRotation.next(by: 1, in: dataset.saves.count)
            let (response, request) = dataset.saves[index]
            let before = try reader.store.changeStamp()
            benchmark.startMeasurement()
            try writer.save(response, for: request)
            while try reader.store.changeStamp() == before {}
            benchmark.stopMeasurement()
        }
    }

    // The baseline: one MSAL JSON blob per user, fetched and parsed into an in-memory cache on every
    // request (as a distributed token cache does before each silent request).
    let blobLookupRotation = Rotation()
    Benchmark("redis: blob per user lookup", configuration: one) { benchmark in
        let client = try client.get()
        for _ in benchmark.scaledIterations {
            let index = blobLookupRotation.next(by: 7, in: queries.count)
            let cache = try bench.blobCache(client, home: queries[index].homeAccountId)
            blackHole(try cache.accessToken(queries[index]))
        }
    }

    // … and written back whole after every save (fetched, parsed, saved into, serialized, SET).
    let blobSaveRotation = Rotation()
    Benchmark("redis: blob per user save", configuration: one) { benchmark in
        let client = try client.get()
        for _ in benchmark.scaledIterations {
            let index = blobSaveRotation.next(by: 1, in: dataset.saves.count)
            let (response, request) = dataset.saves[index]
            let home = "save-\(index)"
            let cache = try bench.blobCache(client, home: home)
            try cache.save(response, for: request)
            try bench.storeBlob(client, home: home, cache: cache)
        }
    }
}

/// A child process of scripts/redis-load.sh (`TOKENCACHE_BENCH_REDIS_WORKER=SECONDS,COLD_PERCENT`):
/// lookups for SECONDS, COLD_PERCENT of them on a cold partition (the lookup-key index and a
/// partition read on the server, as the engine's partition mode does on first use), the rest warm
/// (the engine's in-memory index, revalidated through tracking). Prints `lookups N cold C seconds S`.
func runLoadWorker(_ bench: RedisBench, _ dataset: Dataset, _ worker: String) -> Never {
    let parts = worker.split(separator: ",").compactMap { Double($0) }
    let seconds = parts.first ?? 5
    let coldShare = (parts.count > 1 ? parts[1] : 10) / 100
    do {
        let cache = try TokenCache(store: try bench.open())
        let cold = try bench.open(tracking: false)
        let queries = dataset.exactQueries
        let usernames = dataset.accounts.map { $0.username.lowercased() }
        var generator = SystemRandomNumberGenerator()
        var lookups = 0
        var colds = 0
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            for _ in 0..<100 {
                if Double.random(in: 0..<1, using: &generator) < coldShare {
                    let username = usernames[Int.random(in: 0..<usernames.count, using: &generator)]
                    blackHole(try cold.readPartitions(try cold.partitions(withLookupKey: username) ?? []))
                    colds += 1
                } else {
                    blackHole(try cache.accessToken(queries[Int.random(in: 0..<queries.count, using: &generator)]))
                }
                lookups += 1
            }
        }
        print("lookups \(lookups) cold \(colds) seconds \(Date().timeIntervalSince(start))")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("redis load worker: \(error)\n".utf8))
        exit(1)
    }
}


/// The benchmark's Redis store and blobs.
struct RedisBench: Sendable {
    static let key = "dG9rZW5jYWNoZSBiZW5jaG1hcmsga2V5LCBwdWJsaWM="  // "tokencache benchmark key, public"
    let configuration: RedisConfiguration

    init(spec: String, dataset: Dataset) throws {
        var configuration = try RedisConfiguration(parsing: spec)
        configuration.prefix = "tokencache-bench-\(Int(Date().timeIntervalSince1970 / 3600))"
        configuration.keySource = .environment(name: "TOKENCACHE_BENCH_REDIS_KEY")
        self.configuration = configuration
        let client = try client()
        let ready = "\(configuration.prefix):bench-ready"
        if case .bulk(.some) = try client.command("GET", ready) { return }
        try seed(dataset, client)
        _ = try client.command("SET", ready, "1")
    }

    func open(tracking: Bool = true) throws -> RedisStore {
        var configuration = configuration
        configuration.tracking = tracking
        return try RedisStore(configuration: configuration, accessGroups: try AccessGroups([Dataset.group]),
                              environment: ["TOKENCACHE_BENCH_REDIS_KEY": Self.key])
    }

    func client() throws -> RESPClient { try RESPClient(configuration.endpoint) }

    func blobKey(_ home: String) -> String { "\(configuration.prefix):blob:\(home)" }

    /// The user's blob, fetched and parsed into a fresh in-memory cache.
    func blobCache(_ client: RESPClient, home: String) throws -> TokenCache {
        let store = MemoryStore(accessGroups: try AccessGroups([Dataset.group]))
        if case .bulk(let blob?) = try client.command("GET", blobKey(home)) {
            _ = try CacheInterchange(store: store).importData(blob, source: "the blob", format: .msalJSON)
        }
        return try TokenCache(store: store)
    }

    /// Serializes the whole in-memory cache and writes it back.
    func storeBlob(_ client: RESPClient, home: String, cache: TokenCache) throws {
        let blob = try CacheInterchange(store: cache.store).export(.msalJSON).data
        _ = try client.command([Data("SET".utf8), Data(blobKey(home).utf8), blob])
    }

    /// Copies the dataset in: partitions with their usernames as lookup keys, and a blob per user.
    private func seed(_ dataset: Dataset, _ client: RESPClient) throws {
        let source = try dataset.openWarm().store.allItems()
        let store = try open(tracking: false)
        var byPartition: [PartitionID: [StoreItem]] = [:]
        for item in source { byPartition[item.partition, default: []].append(item) }
        let names = Dictionary(dataset.accounts.map { ($0.homeAccountId, $0.username.lowercased()) }, uniquingKeysWith: { first, _ in first })
        var batch: [StoreOperation] = []
        for (partition, items) in byPartition.sorted(by: { $0.key < $1.key }) {
            batch += items.map(StoreOperation.save)
            let keys = names.filter { partition.account.hasPrefix($0.key) }.map(\.value)
            if !keys.isEmpty { batch.append(.setLookupKeys(partition, keys: keys)) }
            if batch.count > 500 { try store.apply(batch); batch = [] }
        }
        try store.apply(batch + [.declareLookupKeysComplete(accessGroup: Dataset.group)])
        let shared = source.filter { item in !names.keys.contains { item.account.hasPrefix($0) } && item.account.hasPrefix("appmetadata") }
        for home in Set(names.keys) {
            let mine = source.filter { $0.account.hasPrefix(home) } + shared
            let memory = MemoryStore(accessGroups: try AccessGroups([Dataset.group]))
            try memory.save(mine)
            let blob = try CacheInterchange(store: memory).export(.msalJSON).data
            _ = try client.command([Data("SET".utf8), Data(blobKey(home).utf8), blob])
        }
    }
}

enum RedisBenchError: Error {
    /// The Redis copy answered none of the dataset's access-token queries.
    case nothingToAsk
}
