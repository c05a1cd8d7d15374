import Benchmark
import CacheStore
import CacheStoreSQLite
import CacheStoreSecretService
import Foundation
import TokenCache
import TokenCacheSchema

// Every benchmark reports the time of one operation: lookups loop `scaledIterations` (1,000 a
// sample) and the scaling factor divides by it; slower operations are timed one at a time.
//
// TOKENCACHE_BENCH_SHORT=1 runs each briefly (CI); TOKENCACHE_BENCH_CACHE names an MSAL JSON file
// to benchmark on instead of the generated cache (see Dataset).
let benchmarks: @Sendable () -> Void = {
    let short = ProcessInfo.processInfo.environment["TOKENCACHE_BENCH_SHORT"] == "1"
    let duration: Duration = short ? .milliseconds(400) : .seconds(3)
    // CI compares allocations and times with Benchmarks/baseline.json (scripts/bench-check.sh).
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 2,
        scalingFactor: .kilo,
        maxDuration: duration,
        maxIterations: short ? 200 : 10_000
    )

    let dataset: Dataset
    let sqlite: TokenCache
    let memory: TokenCache
    do {
        dataset = try Dataset.make()
        sqlite = try dataset.openWarm()
        memory = try dataset.openWarmInMemory()
    } catch {
        fatalError("cannot build the benchmark dataset: \(error)")
    }
    let accounts = dataset.accounts
    let usernames = accounts.map { $0.username.uppercased() }

    for (suffix, cache) in [("", sqlite), (" (memory store)", memory)] {
        Benchmark("account by identifier" + suffix) { benchmark in
            var index = 0
            for _ in benchmark.scaledIterations {
                index = (index &+ 7) % accounts.count
                blackHole(try cache.account(identifier: accounts[index].homeAccountId))
            }
        }

        Benchmark("account by username" + suffix) { benchmark in
            var index = 0
            for _ in benchmark.scaledIterations {
                index = (index &+ 7) % usernames.count
                blackHole(try cache.account(username: usernames[index]))
            }
        }

        // Listings are remembered until the cache changes; this is the warm call an app makes before
        // each silent request.
        Benchmark("all accounts" + suffix, configuration: .init(scalingFactor: .one)) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try cache.accounts(clientId: dataset.listingClient))
            }
        }

        for (name, queries) in [("access token, exact scopes", dataset.exactQueries), ("access token, scope subset via alias", dataset.subsetQueries)] {
            Benchmark(name + suffix) { benchmark in
                var index = 0
                for _ in benchmark.scaledIterations {
                    index = (index &+ 7) % queries.count
                    blackHole(try cache.accessToken(queries[index]))
                }
            }
        }

        Benchmark("family refresh token" + suffix) { benchmark in
            let queries = dataset.familyQueries
            var index = 0
            for _ in benchmark.scaledIterations {
                index = (index &+ 7) % queries.count
                blackHole(try cache.familyRefreshToken(homeAccountId: queries[index].homeAccountId, clientId: queries[index].clientId))
            }
        }
    }

    // Each response saved once before the saves are timed (not timed): the timed saves are those
    // of users the cache knows, whether or not an earlier run this hour already saved them. A
    // first save adds a user, and a run on a fresh dataset would otherwise time 64 of those.
    let savesKnown = Once { for (response, request) in dataset.saves { try sqlite.save(response, for: request) } }

    // The listing built from the index, as after any change: a save (not timed) comes first.
    let listingRotation = Rotation()
    Benchmark("all accounts, first after a save", configuration: .init(scalingFactor: .one)) { benchmark in
        try savesKnown.get()
        for _ in benchmark.scaledIterations {
            let index = listingRotation.next(by: 1, in: dataset.saves.count)
            let (response, request) = dataset.saves[index]
            try sqlite.save(response, for: request)
            benchmark.startMeasurement()
            blackHole(try sqlite.accounts(clientId: dataset.listingClient))
            benchmark.stopMeasurement()
        }
    }

    let saveRotation = Rotation()
    Benchmark("save token response", configuration: .init(scalingFactor: .one)) { benchmark in
        try savesKnown.get()
        for _ in benchmark.scaledIterations {
            let index = saveRotation.next(by: 1, in: dataset.saves.count)
            let (response, request) = dataset.saves[index]
            blackHole(try sqlite.save(response, for: request))
        }
    }

    // "open store and first lookup, 10,000 accounts": see LargeDataset.
    registerLargeOpenBenchmark(short: short)

    Benchmark("open store and first lookup", configuration: .init(scalingFactor: .one, maxIterations: short ? 5 : 50)) { benchmark in
        let query = dataset.exactQueries[dataset.exactQueries.count / 2]
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let store = try SQLiteStore(path: dataset.path, accessGroups: try AccessGroups([Dataset.group]))
            let cache = try TokenCache(store: store)
            blackHole(try cache.accessToken(query))
            // Releasing the engine afterwards is not part of opening it.
            withExtendedLifetime(cache) { benchmark.stopMeasurement() }
        }
    }

    registerRedisBenchmarks(dataset)
    partitionBenchmarks(short: short)

    // The Secret Service backend's cost for one item, served after its revision check: shown so the
    // price of each layer is visible. Needs a session bus with a keyring (CI starts one).
    if let store = try? SecretServiceStore(
        accessGroups: try! AccessGroups([Dataset.group]),
        options: .init(namespace: "tokencache-benchmark-\(ProcessInfo.processInfo.processIdentifier)"))
    {
        let item = StoreItem(accessGroup: Dataset.group, account: "bench-login.windows.net", service: "refreshtoken-bench--",
                             generic: Data("refreshtoken-bench-".utf8), type: 2002, data: Data(#"{"secret":"x"}"#.utf8))
        if (try? store.save(item)) != nil {
            Benchmark("secret service item read", configuration: .init(scalingFactor: .one)) { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(try store.item(item.identity))
                }
            }
            Benchmark.teardown = { _ = try? store.delete(matching: ItemQuery()) }
        }
    }
}
