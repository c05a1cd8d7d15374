import CacheStore
import Foundation
import Testing
@testable import CacheStoreRedis

/// The shortcuts that save round trips: a planned write made on the revision tracking knows (its
/// check folded into the partitions' read), partitions read in one pipeline, and the cached verdict
/// on tracking's health. Each must give the answers the long way gives.
@Suite("Redis round trips")
struct RedisRoundTripTests {
    static func text(_ items: [StoreItem], _ account: String) -> String? {
        items.first { $0.account == account }.map { String(decoding: $0.data, as: UTF8.self) }
    }

    /// The keys are those docs/redis.md documents (digests in lower-case hex, zero-padded bucket).
    @Test func keysAreTheDocumentedDigests() {
        let layout = RedisLayout(prefix: "tc")
        #expect(layout.partition(group: "group.a", account: "alice-env").key == Data("tc:p:{6fe1d2b060868ea35ecc67dbdac4ce6f}".utf8))
        // The group-index shard: the PID's first three hex digits (0x6fe) mod 512.
        #expect(layout.groupIndexKey(group: "group.a", partitionID: "6fe1d2b060868ea35ecc67dbdac4ce6f")
            == Data("tc:g:91700baf8ce571a108603cc73a566735:0fe".utf8))
        #expect(layout.groupIndexKeys(group: "group.a").count == 513)
        #expect(layout.lookupBucketKey(group: "group.a", lookupKey: "alice@contoso.com") == Data("tc:l:91700baf8ce571a108603cc73a566735:d67".utf8))
        #expect(layout.lookupBucketKey(group: "group.a", lookupKey: "user1@contoso.com") == Data("tc:l:91700baf8ce571a108603cc73a566735:82a".utf8))
        // The legacy layout's keys, still read: one set, and 64 buckets (first byte mod 64).
        #expect(layout.legacyGroupIndexKey("group.a") == Data("tc:g:91700baf8ce571a108603cc73a566735".utf8))
        #expect(layout.legacyLookupBucketKey(group: "group.a", lookupKey: "alice@contoso.com") == Data("tc:l:91700baf8ce571a108603cc73a566735:16".utf8))
        #expect(layout.legacyLookupBucketKey(group: "group.a", lookupKey: "user1@contoso.com") == Data("tc:l:91700baf8ce571a108603cc73a566735:02".utf8))
    }

    @Test(arguments: SharedRedis.present)
    func aPlanOvertakenByAnotherCommitIsMadeAgain(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let store = try SharedRedis.open(configuration)
        let other = try SharedRedis.open(configuration)
        try store.save(item("alice-env", "counter", data: "1"))
        _ = try store.changeStamp()  // the revision tracking then knows
        var stamps: [ChangeStamp] = []
        let result = try store.applyPlanned { stamp, allItems in
            stamps.append(stamp)
            // Another handle commits after this plan's stamp was taken and before its write.
            if stamps.count == 1 { try other.save(item("alice-env", "counter", data: "10")) }
            let current = Int(Self.text(try allItems(), "alice-env") ?? "0")!
            return [.save(item("alice-env", "counter", data: String(current + 1)))]
        }
        // A cluster checks the stamp around the plan only (docs/redis.md): the first plan may stand.
        if server == .standalone { #expect(stamps.count >= 2, "the first plan is dropped") }
        #expect(result.replaced == 1)
        #expect(Self.text(try other.allItems(), "alice-env") == "11")
        #expect(Self.text(try store.allItems(), "alice-env") == "11")
    }

    @Test(arguments: SharedRedis.present)
    func aTrackedCopyStandsInForThePartitionOnlyAtItsRevision(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let store = try SharedRedis.open(configuration)
        try store.save([item("gina-env", "at-1", data: "1"), item("gina-env", "at-2", data: "2")])
        let created = try store.allItems().first { $0.service == "at-1" }?.created
        _ = try store.changeStamp()
        // Planned on the copy the store keeps of its own commit: counts and creation dates as a read gives.
        var result = try store.applyPlanned { _, _ in [.save(item("gina-env", "at-1", data: "1b"))] }
        #expect(result.replaced == 1 && result.added == 0)
        // A copy that is not at the partition's revision (as while an invalidation is on its way) is
        // not used: here it would make the save an addition.
        let key = RedisLayout(prefix: configuration.prefix).partition(group: "group.a", account: "gina-env").key
        store.tracking!.shared.withLock { shared in
            shared.partitions[key]?.items = []
            shared.partitions[key]?.orders = []
            shared.partitions[key]?.revision &-= 1
        }
        result = try store.applyPlanned { _, _ in [.save(item("gina-env", "at-1", data: "1c"))] }
        #expect(result.replaced == 1 && result.added == 0)
        let items = try SharedRedis.open(configuration).allItems()
        #expect(items.map(\.service) == ["at-1", "at-2"])
        #expect(items.map { String(decoding: $0.data, as: UTF8.self) } == ["1c", "2"])
        #expect(items.first?.created == created)
    }

    @Test(arguments: SharedRedis.present)
    func aPlannedWriteListsANewPartitionForFullReads(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let store = try SharedRedis.open(configuration)
        try store.save(item("bob-env", "at-1"))
        _ = try store.changeStamp()
        try store.applyPlanned { _, _ in [.save(item("carol-env", "at-1")), .save(item("bob-env", "at-2"))] }
        let layout = RedisLayout(prefix: configuration.prefix)
        #expect(try RedisPruningTests.members(store, layout) == Set(["bob-env", "carol-env"].map { layout.partition(group: "group.a", account: $0).id }))
        #expect(try SharedRedis.open(configuration).allItems().map(\.service).sorted() == ["at-1", "at-1", "at-2"])
    }

    @Test(arguments: SharedRedis.present)
    func partitionsReadTogetherAreEachAsReadAlone(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let writer = try SharedRedis.open(configuration, groups: ["group.a", "group.b"])
        let reader = try SharedRedis.open(configuration, groups: ["group.a", "group.b"])
        try writer.save([item("dora-env", "at-1"), item("dora-env", "at-2"), item("erin-env", "at-1"), item("dora-env", "at-1", group: "group.b")])
        let ids = [("group.a", "erin-env"), ("group.a", "nobody"), ("group.a", "dora-env"), ("group.b", "dora-env"), ("group.a", "erin-env")]
            .map { PartitionID(accessGroup: $0.0, account: $0.1) }
        // Half of them cached by the reader first, so the batch mixes memory and the server.
        _ = try reader.readPartition(accessGroup: "group.a", account: "dora-env")
        let together = try reader.readPartitions(ids)
        let alone = try ids.map { try reader.readPartition(accessGroup: $0.accessGroup, account: $0.account) }
        #expect(together == alone)
        #expect(together.map(\.items.count) == [1, 0, 2, 1, 1])
        #expect(try reader.readPartitions([]).isEmpty)

        // Another handle's commit reaches the batched read (once its invalidation arrives).
        try writer.save(item("dora-env", "at-1", data: "new"))
        try PrivateRedis.waitUntil("the batched read sees the new item", seconds: 10) {
            try reader.readPartitions(ids)[2].items.first { $0.service == "at-1" }?.data == Data("new".utf8)
        }
        let after = try reader.readPartitions(ids)
        #expect(after[2].revision != together[2].revision)
        #expect(after[0].revision == together[0].revision, "a partition not written keeps its revision")
        #expect(throws: CacheStoreError.self) { try reader.readPartitions([PartitionID(accessGroup: "group.other", account: "x")]) }
    }

    @Test(arguments: SharedRedis.present)
    func aLostListenerEndsTheHealthShortcut(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let writer = try SharedRedis.open(configuration)
        try writer.save(item("fred-env", "at-1", data: "v1"))
        // Opened after the save, so that no invalidation of it is still on its way to the reader's
        // listener (each one moves the stamp), which on a busy machine made the two stamps below differ.
        let reader = try SharedRedis.open(configuration)
        try PrivateRedis.waitUntil("the reader caches the partition", seconds: 10) {
            try reader.items(matching: ItemQuery(accessGroup: "group.a", account: "fred-env")).first?.data == Data("v1".utf8)
        }
        let before = try reader.changeStamp()
        #expect(try reader.changeStamp() == before, "answered from memory")
        #expect(reader.isTrackingHealthy)
        // Kill the reader's listener connections on every master: tracking is then unhealthy and
        // the stamp comes from the server again, so a commit is seen at once.
        let listeners = reader.tracking!.shared.withLock { $0.listeners }
        for (endpoint, listener) in listeners {
            let connection = try RedisConnection(endpoint, connectTimeoutMilliseconds: 2000, commandTimeoutMilliseconds: 2000)
            _ = try connection.command(["CLIENT", "KILL", "ID", String(listener.clientID)])
        }
        try PrivateRedis.waitUntil("the reader notices its listener is gone", seconds: 10) { !reader.isTrackingHealthy }
        try writer.save(item("fred-env", "at-1", data: "v2"))
        #expect(try reader.changeStamp() != before)
        #expect(try reader.items(matching: ItemQuery(accessGroup: "group.a", account: "fred-env")).map(\.data) == [Data("v2".utf8)])
    }
}
