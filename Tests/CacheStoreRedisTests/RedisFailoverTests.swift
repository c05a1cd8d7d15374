import CacheStore
import Foundation
import TestSupport
import Testing
@testable import CacheStoreRedis

/// A Redis Cluster of three masters with one replica each, of the test's own: a master is killed
/// (SIGKILL) while store-worker processes save and look up; its replica takes over. Every call
/// meanwhile succeeds or fails as unavailable within the timeout, the workers follow the new slot
/// map without a restart, no batch is seen in part, and every acknowledged save Redis kept is
/// readable — with `wait=1`, every acknowledged save. The old master then rejoins as a replica.
@Suite("Redis failover", .serialized, .enabled(if: PrivateRedis.available))
struct RedisFailoverTests {
    static let timeout = 2000
    static let workers = 3

    /// One line of `store-worker churn`.
    struct Call {
        let kind: String
        let result: String
        let index: Int
        let start: Int
        let duration: Int

        init?(_ line: String) {
            let words = line.split(separator: " ")
            guard words.count == 5, let index = Int(words[2]), let start = Int(words[3]), let duration = Int(words[4]) else { return nil }
            kind = String(words[0])
            result = String(words[1])
            self.index = index
            self.start = start
            self.duration = duration
        }
    }

    static func now() -> Int { Int(Date().timeIntervalSince1970 * 1000) }

    /// The index of a master other than the first node (the spec's seed, which must outlive the test)
    /// and the port of its replica.
    static func masterToKill(_ cluster: PrivateRedis) throws -> (index: Int, replica: Int) {
        for (index, port) in cluster.ports.enumerated().dropFirst() {
            guard let info = PrivateRedis.info(port, "replication"), info.contains("role:master") else { continue }
            guard let line = info.split(separator: "\r\n").first(where: { $0.hasPrefix("slave0:") }),
                let field = line.split(separator: ",").first(where: { $0.hasPrefix("port=") }),
                let replica = Int(field.dropFirst(5))
            else { continue }
            return (index, replica)
        }
        throw PrivateRedis.Timeout(what: "a master with a replica is found")
    }

    /// `wait=1` on a server without a replica: the save is written on the master, but no replica
    /// can confirm it, so the call fails as unavailable with `notReplicated`, within its timeout.
    @Test func aWriteNoReplicaConfirmsFailsAsNotReplicatedButIsWritten() throws {
        let server = try PrivateRedis()
        var configuration = try RedisConfiguration(parsing: server.spec + "?timeout=400&wait=1")
        configuration.keySource = .environment(name: "TOKENCACHE_REDIS_KEY")
        let store = try SharedRedis.open(configuration)
        #expect {
            try store.save(item("p0", "svc"))
        } throws: { error in
            guard case RedisError.notReplicated(_, let acknowledged, let required) = error else { return false }
            return acknowledged == 0 && required == 1 && ErrorCategory(of: error) == .unavailable
                && String(describing: error).contains("may or may not survive a failover")
        }
        #expect(try store.items(matching: ItemQuery(accessGroup: "group.a", account: "p0")).map(\.service) == ["svc"])
        // Reads do not wait: they succeed at once.
        #expect(try store.allItems().count == 1)
    }

    @Test(arguments: [0, 1])
    func aKilledMasterIsReplacedAndTheWorkersCarryOn(wait: Int) throws {
        let cluster = try PrivateRedis(count: 6, cluster: true, replicas: 1)
        let spec = "redis://127.0.0.1:\(cluster.ports[0])?timeout=\(Self.timeout)&connect_timeout=\(Self.timeout)&wait=\(wait)"
        let environment = ["TOKENCACHE_REDIS_KEY": SharedRedis.key]
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanUp() }
        let stop = scratch.path("stop")
        let workers = try (0..<Self.workers).map { try ChildProcess("store-worker", ["churn", spec, "group.a", "\($0)", stop], environment: environment) }
        defer {
            // Whatever happened, no worker outlives the test (the cluster's servers stop with it).
            FileManager.default.createFile(atPath: stop, contents: nil)
            for worker in workers where worker.process.isRunning { worker.kill() }
        }
        func saved(_ worker: ChildProcess, after: Int = 0) -> Int {
            worker.lines.compactMap(Call.init).filter { $0.kind == "save" && $0.result == "ok" && $0.start >= after }.count
        }
        try PrivateRedis.waitUntil("every worker saved 10 batches", seconds: 60) { workers.allSatisfy { saved($0) >= 10 } }

        let (victim, replica) = try Self.masterToKill(cluster)
        let killed = Self.now()
        cluster.kill(victim)
        try PrivateRedis.waitUntil("the replica took over", seconds: 30) {
            PrivateRedis.info(replica, "replication")?.contains("role:master") == true
                && PrivateRedis.clusterState(cluster.ports[0]) == "ok"
        }
        let promoted = Self.now()
        // The old master comes back, rejoins as its replica's replica (so `wait=1` can be met again).
        try cluster.restart(victim, cluster: true)
        try PrivateRedis.waitUntil("the old master rejoined as a replica", seconds: 30) {
            PrivateRedis.info(cluster.ports[victim], "replication").map { $0.contains("role:slave") && $0.contains("master_link_status:up") } == true
        }
        let rejoined = Self.now()
        try PrivateRedis.waitUntil("every worker saved 10 batches after the failover", seconds: 60) {
            workers.allSatisfy { saved($0, after: rejoined) >= 10 }
        }
        FileManager.default.createFile(atPath: stop, contents: nil)
        var acknowledged = Set<String>()
        var attempted = Set<String>()
        var report: [String] = []
        for (number, worker) in workers.enumerated() {
            let (status, errors) = worker.wait()
            #expect(status == 0, "\(errors)")
            let calls = worker.lines.compactMap(Call.init)
            for call in calls {
                // Each call succeeds or fails as unavailable, within the timeout (with room for a
                // loaded machine's scheduling: a hang would be far longer).
                #expect(call.result == "ok" || call.result == "unavailable", "worker \(number): \(call.kind) \(call.index) \(call.result)")
                #expect(call.duration < Self.timeout + 1500, "worker \(number): \(call.kind) \(call.index) took \(call.duration) ms")
            }
            for call in calls where call.kind == "save" {
                attempted.insert("w\(number)-\(call.index)")
                if call.result == "ok" { acknowledged.insert("w\(number)-\(call.index)") }
            }
            // What the worker saw of the failover: its failed calls, from the start of the first to
            // the end of the first successful call after the last.
            let failed = calls.filter { $0.result != "ok" && $0.start + $0.duration >= killed }
            var window = "none"
            if let first = failed.first, let last = failed.last,
                let next = calls.first(where: { $0.result == "ok" && $0.start >= last.start + last.duration })
            {
                window = "\(next.start + next.duration - first.start) ms"
            }
            let longest = calls.filter { $0.start + $0.duration >= killed }.map(\.duration).max() ?? 0
            report.append("worker \(number): \(failed.count) calls failed, first failure to next success after the last \(window), longest call \(longest) ms")
        }
        // Read back through the surviving seed node: every batch is whole or absent.
        var configuration = try RedisConfiguration(parsing: "redis://127.0.0.1:\(cluster.ports[0])")
        configuration.keySource = .environment(name: "TOKENCACHE_REDIS_KEY")
        let store = try SharedRedis.open(configuration)
        let byAccount = Dictionary(grouping: try store.allItems(), by: \.account)
        for (account, items) in byAccount {
            #expect(attempted.contains(account), "\(account) was never saved")
            #expect(Set(items.map(\.service)) == ["at", "rt", "id"], "\(account) is partial: \(items.map(\.service))")
            for item in items { #expect(item.data == Data("\(account) \(item.service)".utf8)) }
        }
        let lost = acknowledged.subtracting(byAccount.keys)
        if wait >= 1 {
            #expect(lost.isEmpty, "acknowledged with wait=\(wait) but lost: \(lost.sorted())")
        }
        print("failover wait=\(wait): master killed, replica promoted after \(promoted - killed) ms, old master a replica after \(rejoined - killed) ms (as polled); "
              + "\(acknowledged.count) saves acknowledged, \(lost.count) of them lost; " + report.joined(separator: "; "))
    }
}
