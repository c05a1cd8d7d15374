import CacheStore
import Foundation
@testable import CacheStoreRedis

/// The servers `scripts/redis-servers.sh` started (`TOKENCACHE_TEST_REDIS`, `…_CLUSTER`).
enum SharedRedis: String, CaseIterable, CustomStringConvertible, Sendable {
    case standalone = "TOKENCACHE_TEST_REDIS"
    case cluster = "TOKENCACHE_TEST_REDIS_CLUSTER"

    var description: String { self == .standalone ? "standalone" : "cluster" }

    /// The servers this run has; under CI=true all of them (their absence then fails the tests).
    static var present: [SharedRedis] {
        let environment = ProcessInfo.processInfo.environment
        return allCases.filter { environment[$0.rawValue] != nil || environment["CI"] == "true" }
    }

    var spec: String {
        get throws {
            guard let spec = ProcessInfo.processInfo.environment[rawValue] else {
                throw PrivateRedis.Timeout(what: "\(rawValue) is set (run through scripts/test.sh)")
            }
            return spec
        }
    }

    static let key = "q3TuI4LFD8nQ6dsIV5MQnh6V0T1CKjmWKPV5yIlRS3c="

    /// A configuration with a fresh prefix (so a fresh, empty store) and the test key.
    func configuration(prefix: String = "test-\(UUID().uuidString)") throws -> RedisConfiguration {
        var configuration = try RedisConfiguration(parsing: try spec)
        configuration.prefix = prefix
        configuration.keySource = .environment(name: "TOKENCACHE_REDIS_KEY")
        return configuration
    }

    static func open(_ configuration: RedisConfiguration, groups: [String] = ["group.a"]) throws -> RedisStore {
        try RedisStore(configuration: configuration, accessGroups: try AccessGroups(groups), environment: ["TOKENCACHE_REDIS_KEY": key])
    }
}

func item(_ account: String, _ service: String, group: String = "group.a", data: String = "payload") -> StoreItem {
    StoreItem(accessGroup: group, account: account, service: service, generic: Data("g".utf8), type: 2001, data: Data(data.utf8))
}
