import CacheStore
import Foundation
import Testing
@testable import CacheStoreRedis

/// A whole partition key someone else overwrote with another type, and a field that names no item:
/// each is one damaged record, skipped and counted, while every other user's items still read.
@Suite("Redis damaged partitions")
struct RedisDamagedPartitionTests {
    static func raw(_ store: RedisStore, _ arguments: [String], key: Data) throws -> RedisValue {
        try RedisPartitionTests.raw(store, arguments.map { Data($0.utf8) }, key: key)
    }

    @Test(arguments: SharedRedis.present)
    func aKeyOfAnotherTypeIsOneDamagedPartitionAndAWriteReplacesIt(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let store = try SharedRedis.open(configuration)
        try store.save([item("alice-env", "at-1", data: "alice"), item("bob-env", "at-1", data: "bob"), item("carol-env", "rt-1", data: "carol")])
        let key = RedisLayout(prefix: configuration.prefix).partition(group: "group.a", account: "bob-env").key
        let name = String(decoding: key, as: UTF8.self)
        _ = try Self.raw(store, ["DEL", name], key: key)
        _ = try Self.raw(store, ["SET", name, "not a partition"], key: key)

        let other = try SharedRedis.open(configuration)
        #expect(Set(try other.allItems().map(\.data)) == [Data("alice".utf8), Data("carol".utf8)])
        #expect(other.damagedItemCount() == 1)
        #expect(try other.readPartition(accessGroup: "group.a", account: "bob-env").items.isEmpty)
        let damaged = try other.damagedItems()
        #expect(damaged.count == 1)
        #expect(damaged.first?.reason == .unreadablePartition)
        #expect(damaged.first?.identity.accessGroup == "group.a")
        let text = damaged.first?.description ?? ""
        #expect(text.contains(name) && text.contains("not a hash") && !text.contains("not a partition"), "\(text)")

        // Writes to other partitions carry on; a write to the damaged one replaces the foreign key.
        try other.save([item("dave-env", "at-1", data: "dave")])
        try other.save([item("bob-env", "at-2", data: "bob again")])
        #expect(try Self.raw(store, ["TYPE", name], key: key) == .status("hash"))
        #expect(Set(try SharedRedis.open(configuration).allItems().map(\.data))
            == [Data("alice".utf8), Data("carol".utf8), Data("dave".utf8), Data("bob again".utf8)])
        #expect(try other.damagedItems().isEmpty)

        // repair: a key of another type goes, with its group-index member on a standalone server.
        _ = try Self.raw(store, ["DEL", name], key: key)
        _ = try Self.raw(store, ["RPUSH", name, "a list now"], key: key)
        #expect(try other.removeDamagedItems() == 1)
        #expect(try Self.raw(store, ["EXISTS", name], key: key) == .integer(0))
        #expect(try other.allItems().count == 3)
        #expect(other.damagedItemCount() == 0)
    }

    @Test(arguments: SharedRedis.present)
    func aFieldThatNamesNoItemIsDamagedAndRemovable(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let store = try SharedRedis.open(configuration)
        try store.save([item("erin-env", "at-1", data: "erin"), item("frank-env", "at-1", data: "frank")])
        let key = RedisLayout(prefix: configuration.prefix).partition(group: "group.a", account: "erin-env").key
        let name = String(decoding: key, as: UTF8.self)
        _ = try Self.raw(store, ["HSET", name, "junk", "secret-looking value", "x12|svc", "value"], key: key)
        let other = try SharedRedis.open(configuration)
        #expect(Set(try other.allItems().map(\.data)) == [Data("erin".utf8), Data("frank".utf8)])
        #expect(other.damagedItemCount() == 2)
        let damaged = try other.damagedItems()
        #expect(Set(damaged.map(\.identity.service)) == ["junk", "x12|svc"])
        #expect(damaged.allSatisfy { $0.reason == .unreadableField && $0.description.contains(name) && !$0.description.contains("secret-looking") })
        #expect(try other.removeDamagedItems() == 2)
        guard case .array(let fields) = try Self.raw(store, ["HKEYS", name], key: key) else { Issue.record("no hash"); return }
        #expect(Set(fields.compactMap(\.text)) == [".group", ".account", ".rev", "2001|at-1"])
    }

    @Test(arguments: SharedRedis.present)
    func doctorNamesADamagedPartitionByItsKey(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let store = try SharedRedis.open(configuration)
        try store.save([item("gina-env", "at-1"), item("hank-env", "at-1")])
        let key = RedisLayout(prefix: configuration.prefix).partition(group: "group.a", account: "hank-env").key
        let name = String(decoding: key, as: UTF8.self)
        _ = try Self.raw(store, ["DEL", name], key: key)
        _ = try Self.raw(store, ["SET", name, "planted"], key: key)
        let diagnosis = RedisDiagnosis.diagnose(
            configuration, accessGroups: try AccessGroups(["group.a"]), environment: ["TOKENCACHE_REDIS_KEY": SharedRedis.key])
        let fact = try #require(diagnosis.facts.first { $0.name == "damaged items" })
        #expect(fact.outcome == .warning)
        #expect(fact.detail.hasPrefix("1 item that reads skip") && fact.detail.contains(name) && !fact.detail.contains("planted"), "\(fact.detail)")
        #expect(fact.fix?.contains("tokencache repair") == true)
        #expect(diagnosis.usable)
    }
}
