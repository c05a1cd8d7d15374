import Benchmark
import CacheStore
import CacheStoreSQLite
import Foundation
import TokenCache
import TokenCacheSchema

/// Partition loading mode on a store of a million items, and whole-store mode catching up after
/// another writer's save (see docs/benchmarks.md). `TOKENCACHE_BENCH_LARGE_ACCOUNTS` overrides the
/// large store's account count (100,000: a million items).
func partitionBenchmarks(short: Bool) {
    let environment = ProcessInfo.processInfo.environment
    let largeAccounts = environment["TOKENCACHE_BENCH_LARGE_ACCOUNTS"].flatMap(Int.init) ?? 100_000
    let large: LargeStore
    let catchUp: LargeStore
    do {
        large = try LargeStore.make(accounts: largeAccounts)
        catchUp = try LargeStore.make(accounts: 10_000)
    } catch {
        fatalError("cannot build the large benchmark stores: \(error)")
    }
    if large.setupSeconds > 0 || catchUp.setupSeconds > 0 {
        let text = String(
            format: "large stores built: %d accounts in %.1f s, %d accounts in %.1f s\n",
            large.accounts, large.setupSeconds, catchUp.accounts, catchUp.setupSeconds)
        FileHandle.standardError.write(Data(text.utf8))
    }
    let groups = try! AccessGroups([Dataset.group])
    let partitionMode = TokenCache.Configuration(loading: .partitions(limit: 100_000))

    Benchmark(
        "open store and first lookup, partition mode",
        configuration: .init(scalingFactor: .one, maxIterations: short ? 20 : 200)
    ) { benchmark in
        var position = 0
        for _ in benchmark.scaledIterations {
            position = (position &+ 7919) % large.queries.count
            let query = large.queries[position]
            benchmark.startMeasurement()
            let store = try SQLiteStore(path: large.path, accessGroups: groups)
            let cache = try TokenCache(store: store, configuration: partitionMode)
            blackHole(try cache.accessToken(query)!)
            withExtendedLifetime(cache) { benchmark.stopMeasurement() }
        }
    }

    // A working set of 1,000 accounts, loaded once before any measurement.
    let warmQueries = Array(large.queries.prefix(1_000))
    let warm: TokenCache
    do {
        warm = try TokenCache(store: try SQLiteStore(path: large.path, accessGroups: groups), configuration: partitionMode)
        for query in warmQueries { _ = try warm.accessToken(query)! }
    } catch {
        fatalError("cannot warm the partition-mode engine: \(error)")
    }
    Benchmark("warm lookup, partition mode") { benchmark in
        var position = 0
        for _ in benchmark.scaledIterations {
            position = (position &+ 7) % warmQueries.count
            blackHole(try warm.accessToken(warmQueries[position]))
        }
    }

    // Whole-store mode: one engine reads the 10,000-account store, another saves a token for an
    // account (not timed), and the first engine's next silent lookup for that account is timed:
    // it catches up by re-reading the partitions the store names as changed (a store that cannot
    // name them is read whole). Both engines are opened once; the first catch-up, which also maps
    // the index's items to partitions, is timed separately and reported on standard error.
    let reader: TokenCache
    let writer: TokenCache
    let authority = try! Authority("https://login.microsoftonline.com/organizations")
    let step = StepCounter()
    func saveAndQuery() throws -> (AccessTokenQuery, String) {
        let (position, number) = step.next(modulo: catchUp.accounts)
        let home = LargeStore.homeAccountId(position)
        let tenant = LargeStore.tenant(position)
        var response = Dataset.response(
            uid: String(home.prefix(36)), homeTenant: tenant, tenant: tenant,
            username: "user\(position)@contoso\(position % 3).onmicrosoft.com",
            scope: "User.Read Mail.Read openid profile", family: "1")
        response.accessToken = "fresh-\(number)"
        try writer.save(response, for: TokenRequest(authority: authority, clientId: Dataset.appA, scopes: ["User.Read"]))
        let query = AccessTokenQuery(
            homeAccountId: home, environment: "login.microsoftonline.com", realm: tenant, clientId: Dataset.appA, scopes: ["User.Read"])
        return (query, "fresh-\(number)")
    }
    do {
        reader = try TokenCache(store: try SQLiteStore(path: catchUp.path, accessGroups: groups))
        writer = try TokenCache(store: try SQLiteStore(path: catchUp.path, accessGroups: groups))
        _ = try reader.accounts()
        _ = try writer.accounts()
        let (query, secret) = try saveAndQuery()
        let start = Date()
        let found = try reader.accessToken(query)
        precondition(found?.credential.secret == secret, "the reader did not see the writer's token")
        let text = String(format: "silent lookup after another writer's save: first catch-up %.1f ms\n", Date().timeIntervalSince(start) * 1000)
        FileHandle.standardError.write(Data(text.utf8))
    } catch {
        fatalError("cannot open the catch-up engines: \(error)")
    }
    Benchmark(
        "silent lookup after another writer's save",
        configuration: .init(scalingFactor: .one, maxIterations: short ? 50 : 1_000)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let (query, secret) = try saveAndQuery()
            benchmark.startMeasurement()
            let found = try reader.accessToken(query)
            benchmark.stopMeasurement()
            precondition(found?.credential.secret == secret, "the reader did not see the writer's token")
        }
    }
}

/// Numbers the saves of the catch-up benchmark (the harness may call from any thread).
final class StepCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func next(modulo: Int) -> (position: Int, number: Int) {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return ((count &* 7919) % modulo, count)
    }
}
