import CacheStore
import Foundation
import Testing
@testable import CacheStoreRedis

/// Servers that stop, freeze, restart and die under the store: each test runs its own, one test at
/// a time (two servers picking ports at the same moment could take each other's cluster bus port).
@Suite("Redis faults", .serialized, .enabled(if: PrivateRedis.available))
struct RedisFaultTests {
    static func open(_ spec: String, timeout: Int = 1000) throws -> RedisStore {
        var configuration = try RedisConfiguration(parsing: spec)
        configuration.keySource = .environment(name: "TOKENCACHE_REDIS_KEY")
        configuration.commandTimeoutMilliseconds = timeout
        configuration.connectTimeoutMilliseconds = timeout
        return try SharedRedis.open(configuration)
    }

    static let batch: [StoreOperation] = ["p0", "p1", "p2"].flatMap { account in
        (0..<3).map { StoreOperation.save(item(account, "svc-\($0)")) }
    }

    @Test func serverStoppedMidBatchLeavesWholePartitionsAndRecoversAfterRestart() throws {
        let server = try PrivateRedis(persistent: true)
        let store = try Self.open(server.spec)
        store.faultInjection.withLock { hook in
            hook = { index in if index == 1 { server.kill() } }
        }
        #expect {
            try store.apply(Self.batch)
        } throws: { error in
            guard case RedisError.partiallyApplied(let committed, let total, let cause) = error else { return false }
            return committed == 1 && total == 3 && !cause.isEmpty
        }
        store.faultInjection.withLock { $0 = nil }
        // While it is down: a typed error at once, no hang.
        #expect(throws: RedisError.self) { try store.allItems() }
        try server.restart()
        // The same process recovers: the first partition is whole, the others untouched.
        let accounts = try store.allItems().map(\.account)
        #expect(accounts == ["p0", "p0", "p0"])
        // Running the batch again converges.
        let again = try store.apply(Self.batch)
        #expect(again.added == 6 && again.replaced == 3)
        #expect(try store.allItems().count == 9)
    }

    @Test func frozenServerTimesOut() throws {
        let server = try PrivateRedis()
        let store = try Self.open(server.spec, timeout: 300)
        try store.save(item("p0", "svc"))
        server.pause(0, true)
        defer { server.pause(0, false) }
        let started = Date()
        #expect {
            try store.items(matching: ItemQuery(accessGroup: "group.a", account: "p1"))
        } throws: { error in
            if case RedisError.timedOut = error { return true }
            return false
        }
        #expect(Date().timeIntervalSince(started) < 10)  // bounded by the 300 ms timeout, not a hang
        server.pause(0, false)
        try PrivateRedis.waitUntil("the store answers again") { (try? store.allItems().count) == 1 }
    }

    @Test func killedClusterMasterGivesATypedErrorAndTheOtherSlotsStillWork() throws {
        let cluster = try PrivateRedis(count: 3, cluster: true)
        let store = try Self.open(cluster.spec, timeout: 1000)
        let accounts = (0..<30).map { "user-\($0)" }
        try store.save(accounts.map { item($0, "svc") })
        #expect(try store.allItems().count == 30)
        // Which accounts the third master holds.
        let layout = RedisLayout(prefix: store.configuration.prefix)
        let masters = try store.state.withLock { state throws(RedisError) in try state.router.masters() }
        #expect(masters.count == 3)
        cluster.kill(2)
        var failures = 0
        var successes = 0
        for account in accounts {
            let started = Date()
            do {
                _ = try store.items(matching: ItemQuery(accessGroup: "group.a", account: account))
                successes += 1
            } catch let error as RedisError {
                failures += 1
                switch error {
                case .refused, .connectionLost, .clusterUnavailable, .timedOut: break
                default: Issue.record("unexpected error \(error)")
                }
            }
            #expect(Date().timeIntervalSince(started) < 10)
            _ = layout
        }
        #expect(failures > 0)
        // Until the cluster marks the master failed, the other masters' slots are served.
        #expect(failures + successes == 30)
    }
}
