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

    /// Whether `readPartition` reports the partition's own revision (unchanged by writes to other
    /// partitions) rather than the whole store's stamp, which the contract also allows.
    var reportsPartitionRevisions: Bool { true }

    /// Whether another instance's commit reaches this instance's cached partitions asynchronously
    /// (Redis client-side caching: when the invalidation message arrives, docs/redis.md), rather
    /// than as soon as the commit returns.
    var invalidatesAsynchronously: Bool { self == .redis || self == .redisCluster }

    /// Whether the backend must answer `partitionChanges(since:)`; the others may answer nil, and
    /// are held to the same checks once they answer.
    var keepsPartitionHistory: Bool { self == .memory || self == .sqlite }

    /// Whether the backend must keep lookup keys; the others are held to the same checks once
    /// `keepsLookupKeys` says they do.
    var mustKeepLookupKeys: Bool { self == .memory || self == .sqlite }

    /// Two instances over one store, as two processes open it: the same file, keyring namespace or
    /// key prefix (`second` may be opened for other groups). The memory backend has no storage to
    /// share: nil.
    func makeSharedStores(groups: [String] = ["group.a", "group.b"], second: [String]? = nil) throws -> (any ItemStore, any ItemStore)? {
        let name = "tokencache-conformance-\(UUID().uuidString)"
        let open: ([String]) throws -> any ItemStore
        switch self {
        case .memory:
            return nil
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).appendingPathComponent("cache.sqlite").path
            open = { try SQLiteStore(path: path, accessGroups: try AccessGroups($0)) }
        case .secretService:
            open = { try SecretServiceStore(accessGroups: try AccessGroups($0), options: .init(namespace: name)) }
        case .redis, .redisCluster:
            let key = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            open = {
                try RedisTestServers.makeStore(
                    cluster: self == .redisCluster, groups: try AccessGroups($0), maximumDataSize: StoreLimits.maximumDataSize,
                    prefix: name, key: key)
            }
        }
        return (try open(groups), try open(second ?? groups))
    }

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

