import Benchmark
import CacheStore
import CacheStoreSQLite
import Foundation
import TokenCache
import TokenCacheSchema

/// Partition loading mode on a store of a million items, and whole-store mode catching up after
/// another writer's save (see docs/benchmarks.md). `TOKENCACHE_BENCH_LARGE_ACCOUNTS` overrides the
/// large store's account count (100,000: a million items).
///
/// The harness runs each benchmark in a process of its own, and every process registers every
/// benchmark: the stores and engines are made on a benchmark's first (warm-up) sample, in its own
/// process only. The stores are built once an hour and reused (see `LargeStore`).
func partitionBenchmarks(short: Bool) {
    let environment = ProcessInfo.processInfo.environment
    let largeAccounts = environment["TOKENCACHE_BENCH_LARGE_ACCOUNTS"].flatMap(Int.init) ?? 100_000
    let groups = try! AccessGroups([Dataset.group])
    let partitionMode = TokenCache.Configuration(loading: .partitions(limit: 100_000))
    func store(accounts: Int) throws -> LargeStore {
        let store = try LargeStore.make(accounts: accounts)
        if store.setupSeconds > 0 {
            report(String(format: "large store built: %d accounts in %.1f s", accounts, store.setupSeconds))
        }
        return store
    }
    let large = Once { try store(accounts: largeAccounts) }

    // One account, the same every time: its pages are in the OS page cache after the first sample,
    // so this times the engine and SQLite, not the disk. A first lookup whose pages must come from
    // the disk adds the disk's reads (docs/benchmarks.md).
    Benchmark(
        "open store and first lookup, partition mode",
        configuration: .init(scalingFactor: .one, maxIterations: short ? 20 : 200)
    ) { benchmark in
        let large = try large.get()
        for _ in benchmark.scaledIterations {
            let query = large.queries[7919 % large.queries.count]
            benchmark.startMeasurement()
            let store = try SQLiteStore(path: large.path, accessGroups: groups)
            let cache = try TokenCache(store: store, configuration: partitionMode)
            blackHole(try cache.accessToken(query)!)
            withExtendedLifetime(cache) { benchmark.stopMeasurement() }
        }
    }

    // A working set of 1,000 accounts, loaded before any measurement.
    let warm = Once { () throws -> (TokenCache, [AccessTokenQuery]) in
        let large = try large.get()
        let queries = Array(large.queries.prefix(1_000))
        let cache = try TokenCache(store: try SQLiteStore(path: large.path, accessGroups: groups), configuration: partitionMode)
        for query in queries { _ = try cache.accessToken(query)! }
        return (cache, queries)
    }
    Benchmark("warm lookup, partition mode") { benchmark in
        let (cache, queries) = try warm.get()
        benchmark.startMeasurement()
        var position = 0
        for _ in benchmark.scaledIterations {
            position = (position &+ 7) % queries.count
            blackHole(try cache.accessToken(queries[position]))
        }
        benchmark.stopMeasurement()
    }

    // Whole-store mode: one engine reads the 10,000-account store, another saves a token for an
    // account (not timed), and the first engine's next silent lookup for that account is timed:
    // it catches up by re-reading the partitions the store names as changed (a store that cannot
    // name them is read whole). The saves are token refreshes of accounts signed in before (see
    // CatchUpPair). The first catch-up, which also maps the index's items to partitions, is timed
    // on its own and reported on standard error.
    let catchUp = Once { () throws -> CatchUpPair in
        let pair = try CatchUpPair(store: try store(accounts: 10_000), groups: groups)
        let (query, secret) = try pair.saveAndQuery()
        let start = Date()
        let found = try pair.reader.accessToken(query)
        precondition(found?.credential.secret == secret, "the reader did not see the writer's token")
        report(String(format: "silent lookup after another writer's save: first catch-up %.1f ms", Date().timeIntervalSince(start) * 1000))
        return pair
    }
    Benchmark(
        "silent lookup after another writer's save",
        configuration: .init(scalingFactor: .one, maxIterations: short ? 50 : 1_000)
    ) { benchmark in
        let pair = try catchUp.get()
        for _ in benchmark.scaledIterations {
            let (query, secret) = try pair.saveAndQuery()
            benchmark.startMeasurement()
            let found = try pair.reader.accessToken(query)
            benchmark.stopMeasurement()
            precondition(found?.credential.secret == secret, "the reader did not see the writer's token")
        }
    }
}

private func report(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}


/// The two engines of the catch-up benchmark over one store file, and the writer's saves.
///
/// The saves go round `users` accounts, each signed in once (not timed) when the pair is made. An
/// account's first sign-in also rewrites its app's account metadata, one item that lists every
/// account signed in and so grows with the store's users, and every other engine re-reads it: that
/// cost depends on how many accounts were signed in before (the store is kept for an hour), so it
/// is measured apart (docs/scaling.md) rather than mixed into this benchmark's samples.
final class CatchUpPair: @unchecked Sendable {
    let reader: TokenCache
    let writer: TokenCache
    /// The accounts saved for, in the order the saves take them.
    private let positions: [Int]
    private let authority = try! Authority("https://login.microsoftonline.com/organizations")
    private let lock = NSLock()
    private var count = 0

    init(store: LargeStore, groups: AccessGroups, users: Int = 256) throws {
        reader = try TokenCache(store: try SQLiteStore(path: store.path, accessGroups: groups))
        writer = try TokenCache(store: try SQLiteStore(path: store.path, accessGroups: groups))
        positions = (1...min(users, store.accounts)).map { ($0 &* 7919) % store.accounts }
        _ = try reader.accounts()
        _ = try writer.accounts()
        for _ in positions { _ = try saveAndQuery() }
    }

    /// Saves a new access token for the next account through the writer; returns the reader's query
    /// for it and the token.
    func saveAndQuery() throws -> (AccessTokenQuery, String) {
        lock.lock()
        count += 1
        let number = count
        lock.unlock()
        let position = positions[number % positions.count]
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
}
