import CacheStore
import CacheStoreRedis
import Foundation

/// The Redis servers `scripts/redis-servers.sh` started for the run, named by environment variables.
///
/// Without them the Redis backends are left out locally; under `CI=true` they stay in, so a missing
/// server makes the tests fail instead of vanish.
enum RedisTestServers {
    static var backends: [Backend] {
        let environment = ProcessInfo.processInfo.environment
        let ci = environment["CI"] == "true"
        var cases: [Backend] = []
        if ci || environment["TOKENCACHE_TEST_REDIS"] != nil { cases.append(.redis) }
        if ci || environment["TOKENCACHE_TEST_REDIS_CLUSTER"] != nil { cases.append(.redisCluster) }
        return cases
    }

    struct Missing: Error, CustomStringConvertible {
        let variable: String
        var description: String { "\(variable) is not set: run the tests through scripts/test.sh (it starts Redis servers)" }
    }

    /// A fresh, empty store: a new key prefix on the shared server, payloads sealed with a new key
    /// (or, given both, the store of that prefix and key: another instance over the same data).
    static func makeStore(
        cluster: Bool, groups: AccessGroups, maximumDataSize: Int, prefix: String? = nil, key: String? = nil
    ) throws -> RedisStore {
        let variable = cluster ? "TOKENCACHE_TEST_REDIS_CLUSTER" : "TOKENCACHE_TEST_REDIS"
        guard let spec = ProcessInfo.processInfo.environment[variable] else { throw Missing(variable: variable) }
        var configuration = try RedisConfiguration(parsing: spec)
        configuration.prefix = prefix ?? "conformance-\(UUID().uuidString)"
        configuration.keySource = .environment(name: "TEST_REDIS_KEY")
        let key = key ?? Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        return try RedisStore(
            configuration: configuration, accessGroups: groups, environment: ["TEST_REDIS_KEY": key],
            maximumDataSize: maximumDataSize)
    }

    /// Several handles on one fresh store of the standalone server (a new prefix, one key).
    static func makeStores(count: Int, groups: AccessGroups) throws -> [RedisStore] {
        guard let spec = ProcessInfo.processInfo.environment["TOKENCACHE_TEST_REDIS"] else { throw Missing(variable: "TOKENCACHE_TEST_REDIS") }
        var configuration = try RedisConfiguration(parsing: spec)
        configuration.prefix = "conformance-\(UUID().uuidString)"
        configuration.keySource = .environment(name: "TEST_REDIS_KEY")
        let key = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        return try (0..<count).map { _ in
            try RedisStore(configuration: configuration, accessGroups: groups, environment: ["TEST_REDIS_KEY": key])
        }
    }
}
