import CacheStore
import Foundation
import Testing
@testable import CacheStoreRedis

/// The group index and the lookup-key index in shards (`g:GID:SSS`, `l:GID:NNN`), and stores written
/// before they were sharded (one set `g:GID`, 64 buckets `l:GID:NN`), read and kept consistent.
@Suite("Redis sharded index")
struct RedisShardedIndexTests {
    static func run(_ store: RedisStore, _ requests: [(key: Data, command: [Data])]) throws -> [RedisValue] {
        try store.state.withLock { state throws(RedisError) in try state.router.runEach(requests, operation: "test") }
    }

    static func exists(_ store: RedisStore, _ keys: [Data]) throws -> Int {
        try run(store, keys.map { ($0, [Data("EXISTS".utf8), $0]) }).filter { $0 == .integer(1) }.count
    }

    /// One partition per account (an item holding the account's name) with the username `u:ACCOUNT`,
    /// in batches of 100.
    static func seed(_ store: RedisStore, _ accounts: [String]) throws {
        for chunk in stride(from: 0, to: accounts.count, by: 100) {
            _ = try store.apply(accounts[chunk..<min(accounts.count, chunk + 100)].flatMap { account in
                [StoreOperation.save(item(account, "at-1", data: account)),
                 .setLookupKeys(PartitionID(accessGroup: "group.a", account: account), keys: ["u:\(account)"])]
            })
        }
    }

    @Test(arguments: SharedRedis.present)
    func manyPartitionsSpreadOverShardsReadBackWhole(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let layout = RedisLayout(prefix: configuration.prefix)
        let store = try SharedRedis.open(configuration)
        let accounts = (0..<400).map { "user\($0)-env" }
        try Self.seed(store, accounts)
        // 400 partitions over 512 sets: most sets hold one or two, none holds them all.
        let shards = Array(layout.groupIndexKeys(group: "group.a").dropLast())
        #expect(try Self.exists(store, shards) > 200)
        #expect(try Self.exists(store, [layout.legacyGroupIndexKey("group.a")]) == 0)
        #expect(try Self.exists(store, layout.legacyLookupBucketKeys(group: "group.a")) == 0)
        #expect(try Self.exists(store, Array(layout.lookupBucketKeys(group: "group.a").prefix(RedisLayout.lookupBuckets))) > 300)
        let reader = try SharedRedis.open(configuration)
        let items = try reader.allItems()
        #expect(items.count == 400)
        #expect(Set(items.map(\.account)) == Set(accounts))
        #expect(items.allSatisfy { String(decoding: $0.data, as: UTF8.self) == $0.account })
        #expect(try reader.partitionCounts().map(\.1) == [400])
        #expect(try reader.legacyIndexGroups() == [])
        #expect(try reader.partitions(withLookupKey: "u:user123-env") == [PartitionID(accessGroup: "group.a", account: "user123-env")])
    }

    /// Rewrites the store's index in the layout before sharding: each member moved to `g:GID`, each
    /// lookup-key field to its bucket `l:GID:NN` (the partitions themselves are the same in both).
    static func makeLegacy(_ store: RedisStore, _ layout: RedisLayout, accounts: [String], keys: [String: String]) throws {
        for account in accounts {
            let id = layout.partition(group: "group.a", account: account).id
            let shard = layout.groupIndexKey(group: "group.a", partitionID: id)
            let legacy = layout.legacyGroupIndexKey("group.a")
            #expect(try run(store, [(shard, [Data("SREM".utf8), shard, Data(id.utf8)])]) == [.integer(1)])
            _ = try run(store, [(legacy, [Data("SADD".utf8), legacy, Data(id.utf8)])])
        }
        for (key, account) in keys {
            let bucket = layout.lookupBucketKey(group: "group.a", lookupKey: key)
            let legacy = layout.legacyLookupBucketKey(group: "group.a", lookupKey: key)
            #expect(try run(store, [(bucket, [Data("HDEL".utf8), bucket, Data(key.utf8)])]) == [.integer(1)])
            _ = try run(store, [(legacy, [Data("HSET".utf8), legacy, Data(key.utf8), RedisLookupKeys.encode([account])])])
        }
    }

    @Test(arguments: SharedRedis.present)
    func aStoreWrittenInTheLegacyLayoutIsReadWholeAndKeptConsistent(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let layout = RedisLayout(prefix: configuration.prefix)
        let writer = try SharedRedis.open(configuration)
        let accounts = (0..<40).map { "old\($0)-env" }
        try Self.seed(writer, accounts)
        try Self.makeLegacy(writer, layout, accounts: accounts, keys: Dictionary(uniqueKeysWithValues: accounts.map { ("u:\($0)", $0) }))
        #expect(try RedisPruningTests.members(writer, layout).count == 40)
        #expect(try Self.exists(writer, Array(layout.groupIndexKeys(group: "group.a").dropLast())) == 0)

        // A process opened on the legacy store reads every partition, and finds users by name.
        let store = try SharedRedis.open(configuration)
        #expect(Set(try store.allItems().map(\.account)) == Set(accounts))
        #expect(try store.partitions(withLookupKey: "u:old7-env") == [PartitionID(accessGroup: "group.a", account: "old7-env")])
        #expect(try store.partitionCounts().map(\.1) == [40])
        #expect(try store.legacyIndexGroups() == ["group.a"])

        // Its next writes: a new partition goes to a shard; a legacy one deleted, renamed, updated.
        let old3 = PartitionID(accessGroup: "group.a", account: "old3-env")
        _ = try store.apply([
            .save(item("new-env", "at-1", data: "new-env")),
            .setLookupKeys(PartitionID(accessGroup: "group.a", account: "new-env"), keys: ["u:new-env"]),
            .setLookupKeys(old3, keys: ["u:renamed"]),
            .save(item("old4-env", "at-2", data: "old4-env")),
        ])
        // Emptied of items and keys: the partition's hash is deleted.
        try store.delete(matching: ItemQuery(accessGroup: "group.a", account: "old5-env"))
        _ = try store.apply([.setLookupKeys(PartitionID(accessGroup: "group.a", account: "old5-env"), keys: [])])
        let newID = layout.partition(group: "group.a", account: "new-env").id
        #expect(try Self.exists(store, [layout.groupIndexKey(group: "group.a", partitionID: newID)]) == 1)
        let reader = try SharedRedis.open(configuration)
        let items = try reader.allItems()
        #expect(Set(items.map(\.account)) == Set(accounts).subtracting(["old5-env"]).union(["new-env"]))
        #expect(items.filter { $0.account == "old4-env" }.map(\.service).sorted() == ["at-1", "at-2"])
        #expect(try reader.partitions(withLookupKey: "u:new-env") == [PartitionID(accessGroup: "group.a", account: "new-env")])
        #expect(try reader.partitions(withLookupKey: "u:renamed") == [old3])
        // The key old3 no longer carries is gone from the legacy bucket (a cluster may keep a stale
        // candidate only after a failure; none happened here).
        #expect(try reader.partitions(withLookupKey: "u:old3-env") == [])
        #expect(try reader.partitions(withLookupKey: "u:old5-env") == [])
        if server == .standalone {
            // The deleted partition left the legacy set in its own transaction.
            let old5 = layout.partition(group: "group.a", account: "old5-env").id
            #expect(try !RedisPruningTests.members(reader, layout).contains(old5))
        }
    }

    @Test func aPruneEmptiesTheLegacyIndexAndMovesTheRestIntoTheShards() throws {
        guard SharedRedis.present.contains(.standalone) else { return }
        let configuration = try SharedRedis.standalone.configuration()
        let layout = RedisLayout(prefix: configuration.prefix)
        let store = try SharedRedis.open(configuration)
        let accounts = ["kept-env", "gone-env"]
        try Self.seed(store, accounts)
        try Self.makeLegacy(store, layout, accounts: accounts, keys: ["u:kept-env": "kept-env", "u:gone-env": "gone-env"])
        let gone = layout.partition(group: "group.a", account: "gone-env").key
        _ = try Self.run(store, [(gone, [Data("DEL".utf8), gone])])  // expired
        let pruner = try SharedRedis.open(configuration)
        #expect(try pruner.pruneRemovedPartitions() == PrunedRecords(partitions: 1, lookupKeys: 1))
        #expect(try RedisPruningTests.members(store, layout) == [layout.partition(group: "group.a", account: "kept-env").id])
        #expect(try pruner.partitions(withLookupKey: "u:gone-env") == [])
        #expect(try pruner.partitions(withLookupKey: "u:kept-env") == [PartitionID(accessGroup: "group.a", account: "kept-env")])
        // What remained of the legacy index moved into the shards: the old keys are gone, and a
        // process opened now (which reads no old bucket) finds everything.
        #expect(try pruner.legacyIndexGroups() == [])
        let kept = layout.partition(group: "group.a", account: "kept-env").id
        #expect(try Self.exists(store, [layout.groupIndexKey(group: "group.a", partitionID: kept)]) == 1)
        let fresh = try SharedRedis.open(configuration)
        #expect(try fresh.partitions(withLookupKey: "u:kept-env") == [PartitionID(accessGroup: "group.a", account: "kept-env")])
        #expect(try fresh.allItems().map(\.account) == ["kept-env"])
        #expect(try pruner.pruneRemovedPartitions() == PrunedRecords())
    }
}
