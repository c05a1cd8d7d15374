import CacheStore
import Foundation
import Testing
@testable import CacheStoreRedis

/// Group-index members and lookup-key entries of partitions that no longer exist: dropped when a
/// write empties a partition, pruned by `pruneRemovedPartitions()` when a partition expired.
@Suite("Redis pruning")
struct RedisPruningTests {
    /// The members of every group-index set of `group` (its shards and the legacy set).
    static func members(_ store: RedisStore, _ layout: RedisLayout, group: String = "group.a") throws -> Set<String> {
        let keys = layout.groupIndexKeys(group: group)
        let replies = try store.state.withLock { state throws(RedisError) in
            try state.router.runEach(keys.map { ($0, [Data("SMEMBERS".utf8), $0]) }, operation: "test")
        }
        var ids = Set<String>()
        for case .array(let members) in replies { ids.formUnion(members.compactMap(\.text)) }
        return ids
    }

    @Test func anEmptiedPartitionLeavesTheGroupIndexInItsOwnTransaction() throws {
        guard SharedRedis.present.contains(.standalone) else { return }
        let configuration = try SharedRedis.standalone.configuration()
        let layout = RedisLayout(prefix: configuration.prefix)
        let store = try SharedRedis.open(configuration)
        try store.save([item("alice-env", "at-1"), item("bob-env", "at-1")])
        let alice = layout.partition(group: "group.a", account: "alice-env")
        let bob = layout.partition(group: "group.a", account: "bob-env")
        #expect(try Self.members(store, layout) == [alice.id, bob.id])
        try store.delete(matching: ItemQuery(accessGroup: "group.a", account: "bob-env"))
        #expect(try Self.members(store, layout) == [alice.id])
        // Made again: listed again, and read by another process's full read.
        try store.save([item("bob-env", "at-2", data: "again")])
        #expect(try Self.members(store, layout) == [alice.id, bob.id])
        #expect(Set(try SharedRedis.open(configuration).allItems().map(\.service)) == ["at-1", "at-2"])
    }

    @Test func expiredPartitionsArePrunedFromTheGroupAndLookupKeyIndexes() throws {
        guard SharedRedis.present.contains(.standalone) else { return }
        let configuration = try SharedRedis.standalone.configuration()
        let layout = RedisLayout(prefix: configuration.prefix)
        let store = try SharedRedis.open(configuration)
        let carol = PartitionID(accessGroup: "group.a", account: "carol-env")
        let dave = PartitionID(accessGroup: "group.a", account: "dave-env")
        _ = try store.apply([
            .save(item("carol-env", "at-1")), .setLookupKeys(carol, keys: ["u:carol", "u:shared"]),
            .save(item("dave-env", "at-1")), .setLookupKeys(dave, keys: ["u:dave", "u:shared"]),
        ])
        // Carol's partition expires (what `lifetime=` does to a partition nobody touches).
        let carolKey = layout.partition(group: "group.a", account: "carol-env").key
        _ = try RedisPartitionTests.raw(store, [Data("PEXPIRE".utf8), carolKey, Data("1".utf8)], key: carolKey)
        try PrivateRedis.waitUntil("carol's partition expires", seconds: 5) {
            try RedisPartitionTests.raw(store, [Data("EXISTS".utf8), carolKey], key: carolKey) == .integer(0)
        }
        #expect(try Self.members(store, layout).count == 2)
        #expect(try store.partitions(withLookupKey: "u:carol") == [carol])

        let other = try SharedRedis.open(configuration)
        #expect(try other.pruneRemovedPartitions() == PrunedRecords(partitions: 1, lookupKeys: 2))
        #expect(try Self.members(store, layout) == [layout.partition(group: "group.a", account: "dave-env").id])
        #expect(try store.partitions(withLookupKey: "u:carol") == [])
        #expect(try store.partitions(withLookupKey: "u:shared") == [dave])
        #expect(try other.pruneRemovedPartitions() == PrunedRecords())
        // Carol signs in again: listed and indexed again, found by full reads and by username.
        _ = try store.apply([.save(item("carol-env", "at-2")), .setLookupKeys(carol, keys: ["u:carol"])])
        #expect(try other.partitions(withLookupKey: "u:carol") == [carol])
        #expect(Set(try other.allItems().map(\.account)) == ["carol-env", "dave-env"])
    }

    @Test func aPruneRacingWritersThatMakeThePartitionAgainNeverUnlistsIt() throws {
        guard SharedRedis.present.contains(.standalone) else { return }
        let configuration = try SharedRedis.standalone.configuration()
        let layout = RedisLayout(prefix: configuration.prefix)
        let writer = try SharedRedis.open(configuration)
        let pruner = try SharedRedis.open(configuration)
        let erin = PartitionID(accessGroup: "group.a", account: "erin-env")
        let key = layout.partition(group: "group.a", account: "erin-env").key
        for round in 0..<30 {
            _ = try writer.apply([.save(item("erin-env", "at-\(round)")), .setLookupKeys(erin, keys: ["u:erin"])])
            _ = try RedisPartitionTests.raw(writer, [Data("DEL".utf8), key], key: key)  // expired
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = try? pruner.pruneRemovedPartitions()
                done.signal()
            }
            _ = try writer.apply([.save(item("erin-env", "at-\(round)")), .setLookupKeys(erin, keys: ["u:erin"])])
            done.wait()
            #expect(try Self.members(writer, layout).contains(layout.partition(group: "group.a", account: "erin-env").id), "round \(round)")
            #expect(try writer.partitions(withLookupKey: "u:erin") == [erin], "round \(round)")
        }
    }

    @Test func aClusterPrunesNothing() throws {
        guard SharedRedis.present.contains(.cluster) else { return }
        let configuration = try SharedRedis.cluster.configuration()
        let store = try SharedRedis.open(configuration)
        try store.save([item("frank-env", "at-1")])
        try store.delete(matching: ItemQuery(accessGroup: "group.a", account: "frank-env"))
        #expect(try store.pruneRemovedPartitions() == PrunedRecords())
        #expect(try store.allItems().isEmpty)
    }
}
