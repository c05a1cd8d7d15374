import CacheStore
import CacheStoreEncryption
import Foundation
import Testing
@testable import CacheStoreRedis

@Suite("Redis store")
struct RedisStoreTests {
    @Test(arguments: SharedRedis.present)
    func layoutIsTheDocumentedKeys(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let store = try SharedRedis.open(configuration)
        try store.save([item("alice-env", "at-1", data: "secret-token"), item("alice-env", "rt-1")])
        let layout = RedisLayout(prefix: configuration.prefix)
        let partition = layout.partition(group: "group.a", account: "alice-env")
        #expect(String(decoding: partition.key, as: UTF8.self) == "\(configuration.prefix):p:{\(partition.id)}")
        let raw = try store.state.withLock { state throws(RedisError) in
            (try state.router.run([Data("HGETALL".utf8), partition.key], key: partition.key, operation: "test"),
             try state.router.run([Data("SMEMBERS".utf8), layout.groupIndexKey(group: "group.a", partitionID: partition.id)],
                                 key: layout.groupIndexKey(group: "group.a", partitionID: partition.id), operation: "test"),
             try state.router.run([Data("GET".utf8), layout.revisionKey], key: layout.revisionKey, operation: "test"))
        }
        guard case .array(let flat) = raw.0 else { Issue.record("no hash"); return }
        var fields: [String: Data] = [:]
        for index in stride(from: 0, to: flat.count, by: 2) {
            if case .string(let name) = flat[index], case .string(let value) = flat[index + 1] { fields[String(decoding: name, as: UTF8.self)] = value }
        }
        #expect(Set(fields.keys) == [".group", ".account", ".rev", "2001|at-1", "2001|rt-1"])
        #expect(fields[".group"] == Data("group.a".utf8))
        #expect(fields[".account"] == Data("alice-env".utf8))
        // The payload is sealed: the token's bytes are not in Redis.
        let record = try #require(fields["2001|at-1"])
        #expect(record.range(of: Data("secret-token".utf8)) == nil)
        #expect(raw.1 == .array([.string(Data(partition.id.utf8))]))
        #expect(raw.2 == .string(Data("1".utf8)))
        // Another store with a different key cannot read it, and says why.
        let other = try RedisStore(
            configuration: configuration, accessGroups: try AccessGroups(["group.a"]),
            environment: ["TOKENCACHE_REDIS_KEY": DataKey.generate().exportBase64()])
        #expect(throws: EncryptionError.self) { try other.allItems() }
    }

    @Test(arguments: SharedRedis.present)
    func anotherStoreSeesACommitThroughTracking(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let writer = try SharedRedis.open(configuration)
        let reader = try SharedRedis.open(configuration)
        #expect(reader.isTrackingHealthy)
        #expect(try reader.items(matching: ItemQuery(accessGroup: "group.a", account: "bob-env")).isEmpty)
        let before = try reader.changeStamp()
        #expect(try reader.changeStamp() == before)
        let result = try writer.save(item("bob-env", "at-1", data: "v1"))
        // The writer's own commit leaves it at the commit's result: no reload for its own write.
        #expect(try writer.changeStamp() == result.commit?.result)
        try PrivateRedis.waitUntil("the reader's stamp changes", seconds: 10) { try reader.changeStamp() != before }
        // Invalidations arrive per key, asynchronously (the group index's may come before the
        // partition's): the cached partition is replaced once the partition's own message is in.
        try PrivateRedis.waitUntil("the reader's cached partition is invalidated", seconds: 10) {
            try reader.items(matching: ItemQuery(accessGroup: "group.a", account: "bob-env")).map(\.data) == [Data("v1".utf8)]
        }
        try writer.save(item("bob-env", "at-1", data: "v2"))
        try PrivateRedis.waitUntil("the reader's cached partition is replaced", seconds: 10) {
            try reader.items(matching: ItemQuery(accessGroup: "group.a", account: "bob-env")).map(\.data) == [Data("v2".utf8)]
        }
        let read = try reader.readPartition(accessGroup: "group.a", account: "bob-env")
        #expect(read.items.count == 1 && read.revision.first > 0)
        // A partition's revision ignores writes to other partitions.
        try writer.save(item("erin-env", "at-1"))
        try PrivateRedis.waitUntil("the reader sees the other partition", seconds: 10) {
            try reader.items(matching: ItemQuery(accessGroup: "group.a", account: "erin-env")).count == 1
        }
        #expect(try reader.readPartition(accessGroup: "group.a", account: "bob-env").revision == read.revision)
    }

    @Test(arguments: SharedRedis.present)
    func withoutTrackingEveryCallRevalidates(server: SharedRedis) throws {
        var configuration = try server.configuration()
        configuration.tracking = false
        let writer = try SharedRedis.open(configuration)
        let reader = try SharedRedis.open(configuration)
        #expect(!reader.isTrackingHealthy)
        let before = try reader.changeStamp()
        try writer.save(item("carol-env", "at-1"))
        #expect(try reader.changeStamp() != before)
        #expect(try reader.allItems().count == 1)
    }

    @Test(arguments: SharedRedis.present)
    func slidingLifetimeIsSetAndRefreshed(server: SharedRedis) throws {
        var configuration = try server.configuration()
        configuration.lifetimeSeconds = 3600
        let store = try SharedRedis.open(configuration)
        try store.save(item("dave-env", "at-1"))
        let key = RedisLayout(prefix: configuration.prefix).partition(group: "group.a", account: "dave-env").key
        func ttl() throws -> Int64 {
            try store.state.withLock { state throws(RedisError) in
                guard case .integer(let value) = try state.router.run([Data("PTTL".utf8), key], key: key, operation: "test") else { return -3 }
                return value
            }
        }
        #expect(try ttl() > 3_590_000)
        _ = try store.state.withLock { state throws(RedisError) in
            try state.router.run([Data("PEXPIRE".utf8), key, Data("1000000".utf8)], key: key, operation: "test")
        }
        #expect(try store.items(matching: ItemQuery(accessGroup: "group.a", account: "dave-env")).count == 1)
        #expect(try ttl() > 3_590_000)
    }

    @Test(arguments: SharedRedis.present)
    func aMissingKeyIsATypedErrorNamingTheVariable(server: SharedRedis) throws {
        let configuration = try server.configuration()
        #expect {
            try RedisStore(configuration: configuration, accessGroups: try AccessGroups(["group.a"]), environment: [:])
        } throws: { error in
            guard case RedisError.keyUnavailable(_, let reason) = error else { return false }
            return reason.contains("TOKENCACHE_REDIS_KEY")
        }
    }

    @Test func nothingListeningIsRefused() throws {
        let port = (20000...45000).first { PrivateRedis.free($0) && $0 % 7 == 3 }!
        var configuration = RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: port), keySource: .none)
        configuration.connectTimeoutMilliseconds = 500
        #expect {
            try RedisStore(configuration: configuration, accessGroups: try AccessGroups(["group.a"]))
        } throws: { error in
            if case RedisError.refused = error { return true }
            return false
        }
        let socket = RedisConfiguration(endpoint: .unix(path: "/nonexistent/redis.sock"), keySource: .none)
        #expect(throws: RedisError.self) { try RedisStore(configuration: socket, accessGroups: try AccessGroups(["group.a"])) }
    }
}
