import CacheStore
import Foundation
import Testing
@testable import CacheStoreRedis

/// What the Redis backend adds for partition loading and damaged records: the lookup-key index's
/// keys, partition changes seen through tracking, damaged records skipped and removable.
@Suite("Redis partitions")
struct RedisPartitionTests {
    static func raw(_ store: RedisStore, _ arguments: [Data], key: Data) throws -> RedisValue {
        try store.state.withLock { state throws(RedisError) in try state.router.run(arguments, key: key, operation: "test") }
    }

    @Test(arguments: SharedRedis.present)
    func lookupKeysLiveInThePartitionAndTheGroupsIndex(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let store = try SharedRedis.open(configuration)
        let partition = PartitionID(accessGroup: "group.a", account: "alice-env")
        _ = try store.apply([.save(item("alice-env", "at-1")), .setLookupKeys(partition, keys: ["alice@contoso.com"])])
        let layout = RedisLayout(prefix: configuration.prefix)
        let key = layout.partition(group: "group.a", account: "alice-env").key
        #expect(try Self.raw(store, [Data("HGET".utf8), key, Data(".keys".utf8)], key: key) == .string(Data(#"["alice@contoso.com"]"#.utf8)))
        let bucket = layout.lookupBucketKey(group: "group.a", lookupKey: "alice@contoso.com")
        #expect(try Self.raw(store, [Data("HGET".utf8), bucket, Data("alice@contoso.com".utf8)], key: bucket)
            == .string(Data(#"["alice-env"]"#.utf8)))
        // A new store's index is complete; another process sees it at once.
        let other = try SharedRedis.open(configuration)
        #expect(try other.partitions(withLookupKey: "alice@contoso.com") == [partition])
        // A group written before the index existed (no completeness flag, items present) is not
        // answered, also after a reopen, until a writer declares it complete.
        let complete = layout.lookupCompleteKey("group.a")
        _ = try Self.raw(store, [Data("DEL".utf8), complete], key: complete)
        #expect(try other.partitions(withLookupKey: "alice@contoso.com") == nil)
        #expect(try SharedRedis.open(configuration).partitions(withLookupKey: "alice@contoso.com") == nil)
        _ = try store.apply([.declareLookupKeysComplete(accessGroup: "group.a")])
        #expect(try other.partitions(withLookupKey: "alice@contoso.com") == [partition])
        #expect(store.keepsLookupKeys)
    }

    @Test(arguments: SharedRedis.present)
    func anotherStoresCommitsArriveAsPartitionChanges(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let writer = try SharedRedis.open(configuration)
        let reader = try SharedRedis.open(configuration)
        let start = try #require(try reader.partitionChanges(since: nil))
        try writer.save([item("bob-env", "at-1"), item("carol-env", "at-1")])
        let expected: Set = [PartitionID(accessGroup: "group.a", account: "bob-env"), PartitionID(accessGroup: "group.a", account: "carol-env")]
        var seen = Set<PartitionID>()
        var revision = start.revision
        try PrivateRedis.waitUntil("the reader hears of both partitions", seconds: 10) {
            let changes = try #require(try reader.partitionChanges(since: revision))
            seen.formUnion(changes.partitions)
            revision = changes.revision
            return seen == expected
        }
        // Without tracking the store cannot tell.
        var untracked = configuration
        untracked.tracking = false
        #expect(try SharedRedis.open(untracked).partitionChanges(since: nil) == nil)
    }

    /// The record layout docs/redis.md gives operators, byte for byte, and back.
    @Test func recordsKeepTheirDocumentedLayout() throws {
        let created = Date(timeIntervalSinceReferenceDate: 1_000.5)
        let modified = Date(timeIntervalSinceReferenceDate: 2_000.25)
        func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        let times = bigEndian(created.timeIntervalSinceReferenceDate.bitPattern) + bigEndian(modified.timeIntervalSinceReferenceDate.bitPattern)
        let withGeneric = RedisRecord.encode(
            order: 0x0102_0304_0506_0708, generic: Data("gen".utf8), created: created, modified: modified, sealed: true, payload: Data("body".utf8))
        #expect([UInt8](withGeneric) == [1] + bigEndian(UInt64(0x0102_0304_0506_0708)) + [1] + bigEndian(UInt32(3)) + Array("gen".utf8)
            + times + [1] + Array("body".utf8))
        let bare = RedisRecord.encode(order: 7, generic: nil, created: created, modified: modified, sealed: false, payload: Data())
        #expect([UInt8](bare) == [1] + bigEndian(UInt64(7)) + [0] + times + [0])
        let decoded = try #require(RedisRecord.decode(withGeneric))
        #expect(decoded.order == 0x0102_0304_0506_0708 && decoded.generic == Data("gen".utf8) && decoded.sealed)
        #expect(decoded.created == created && decoded.modified == modified && decoded.payload == Data("body".utf8))
        let empty = try #require(RedisRecord.decode(bare))
        #expect(empty.generic == nil && !empty.sealed && empty.payload.isEmpty)
    }

    @Test(arguments: SharedRedis.present)
    func damagedRecordsAreSkippedCountedAndRemovable(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let store = try SharedRedis.open(configuration)
        try store.save([item("dora-env", "at-1", data: "sound-1"), item("dora-env", "rt-1", data: "sound-2"), item("eve-env", "at-1")])
        let key = RedisLayout(prefix: configuration.prefix).partition(group: "group.a", account: "dora-env").key
        guard case .string(let sealed) = try Self.raw(store, [Data("HGET".utf8), key, Data("2001|at-1".utf8)], key: key) else {
            Issue.record("no record"); return
        }
        let plain = RedisRecord.encode(order: 1, generic: nil, created: Date(), modified: Date(), sealed: false, payload: Data("forged".utf8))
        _ = try Self.raw(store, [Data("HSET".utf8), key,
                                 Data("2001|garbage".utf8), Data("not a record".utf8),
                                 Data("2001|plain".utf8), plain,
                                 Data("2001|moved".utf8), sealed], key: key)
        let other = try SharedRedis.open(configuration)
        #expect(Set(try other.allItems().map(\.data)) == [Data("payload".utf8), Data("sound-1".utf8), Data("sound-2".utf8)])
        #expect(other.damagedItemCount() == 3)
        #expect(try other.readPartition(accessGroup: "group.a", account: "dora-env").items.count == 2)
        let damaged = try other.damagedItems()
        #expect(Dictionary(uniqueKeysWithValues: damaged.map { ($0.identity.service, $0.reason) }) == [
            "garbage": .malformedEnvelope, "plain": .unsealedInSealedGroup, "moved": .failedAuthentication,
        ])
        #expect(try other.removeDamagedItems() == 3)
        #expect(try other.damagedItems().isEmpty)
        #expect(other.damagedItemCount() == 0)
        #expect(try store.allItems().count == 3)
        guard case .array(let fields) = try Self.raw(store, [Data("HKEYS".utf8), key], key: key) else { Issue.record("no hash"); return }
        #expect(Set(fields.compactMap(\.text)) == [".group", ".account", ".rev", "2001|at-1", "2001|rt-1"])
    }
}
