import CacheStoreMemory
import Testing
import CacheStore
import CacheStoreRedis
import CacheStoreSQLite
import CacheStoreSecretService
import Foundation

/// A backend under test, and how to open a fresh store of it.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case sqlite
    case secretService
    case redis
    case redisCluster

    /// Every backend this machine can run. The Secret Service needs a D-Bus session with a keyring
    /// (`scripts/test.sh` starts one); outside one it is left out locally, but never in CI
    /// (`CI=true`), where a missing session makes its tests fail instead of vanish.
    static var allCases: [Backend] {
        let environment = ProcessInfo.processInfo.environment
        var cases: [Backend] = [.memory, .sqlite]
        if SessionBus.address() != nil || environment["CI"] == "true" { cases.append(.secretService) }
        return cases + RedisTestServers.backends
    }

    var testDescription: String { rawValue }

    /// A new, empty store for `groups`. SQLite stores live in a new temporary directory.
    func makeStore(groups: [String] = ["group.a", "group.b"], maximumDataSize: Int = StoreLimits.maximumDataSize) throws -> any ItemStore {
        let accessGroups = try AccessGroups(groups)
        switch self {
        case .memory:
            return MemoryStore(accessGroups: accessGroups, maximumDataSize: maximumDataSize)
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("tokencache-conformance-\(UUID().uuidString)")
            return try SQLiteStore(
                path: directory.appendingPathComponent("cache.sqlite").path,
                accessGroups: accessGroups,
                options: .init(maximumDataSize: maximumDataSize))
        case .secretService:
            // The login keyring of the test session; a fresh namespace makes a fresh, empty store.
            return try SecretServiceStore(
                accessGroups: accessGroups,
                options: .init(namespace: "conformance-\(UUID().uuidString)", maximumDataSize: maximumDataSize))
        case .redis, .redisCluster:
            return try RedisTestServers.makeStore(cluster: self == .redisCluster, groups: accessGroups, maximumDataSize: maximumDataSize)
        }
    }
}

