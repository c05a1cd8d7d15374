import CacheStore
import Foundation
import Testing
@_spi(Statistics) @testable import CacheStoreRedis

/// What another client's commit costs an instance whose tracking is healthy: its stamp moves with
/// no round trip (the revision is not read again), and a partition-mode cache learns which of the
/// partitions it read changed, without looking up those it never read.
@Suite("Redis change stamps and changes without round trips")
struct RedisChangeStampTests {
    static func roundTrips(_ store: RedisStore) -> Int {
        store.roundTrips.values.reduce(0, +)
    }

    @Test(arguments: SharedRedis.present)
    func anotherClientsCommitMovesTheStampWithoutARoundTrip(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let writer = try SharedRedis.open(configuration)
        try writer.save(item("hana-env", "at-1", data: "v1"))
        let reader = try SharedRedis.open(configuration)
        let first = try reader.changeStamp()
        #expect(reader.isTrackingHealthy)
        let trips = Self.roundTrips(reader)
        try writer.save(item("hana-env", "at-1", data: "v2"))
        var stamps: Set<ChangeStamp> = [first]
        try PrivateRedis.waitUntil("the reader's stamp moves", seconds: 10) { try reader.changeStamp() != first }
        // Every invalidation of the commit (the partition's and the revision's) has landed by now.
        Thread.sleep(forTimeInterval: 0.3)
        stamps.insert(try reader.changeStamp())
        #expect(Self.roundTrips(reader) == trips, "the stamp moved from memory")
        // The reader's own commit gives a stamp it never gave before, and the same one after it.
        try reader.save(item("ivan-env", "at-1", data: "v1"))
        let own = try reader.changeStamp()
        #expect(!stamps.contains(own))
        #expect(try reader.changeStamp() == own)
        #expect(try reader.items(matching: ItemQuery(accessGroup: "group.a", account: "hana-env")).map(\.data) == [Data("v2".utf8)])
    }

    @Test(arguments: SharedRedis.present)
    func aCacheOfReadPartitionsIsNotToldOfOthers(server: SharedRedis) throws {
        let configuration = try server.configuration()
        let writer = try SharedRedis.open(configuration)
        try writer.save([item("jade-env", "at-1", data: "v1"), item("kira-env", "at-1", data: "v1")])
        let reader = try SharedRedis.open(configuration)
        // Read once from the server, then again from tracking's copy: both count as read.
        _ = try reader.readPartitions([PartitionID(accessGroup: "group.a", account: "jade-env")])
        _ = try reader.readPartitions([PartitionID(accessGroup: "group.a", account: "jade-env")])
        let start = try #require(try reader.partitionChanges(since: nil))
        try writer.save([item("jade-env", "at-1", data: "v2"), item("kira-env", "at-1", data: "v2"), item("lena-env", "at-1", data: "v1")])
        let jade = PartitionID(accessGroup: "group.a", account: "jade-env")
        var seen = Set<PartitionID>()
        let trips = Self.roundTrips(reader)
        try PrivateRedis.waitUntil("the reader hears of the partition it read", seconds: 10) {
            seen.formUnion(try #require(try reader.partitionChanges(since: start.revision, readOrWrittenOnly: true)).partitions)
            return seen.contains(jade)
        }
        #expect(seen == [jade], "partitions never read are left out")
        #expect(Self.roundTrips(reader) == trips)
        // Asked for every change, it names the others too (looking them up).
        let expected: Set = [jade, PartitionID(accessGroup: "group.a", account: "kira-env"), PartitionID(accessGroup: "group.a", account: "lena-env")]
        try PrivateRedis.waitUntil("the reader hears of every partition", seconds: 10) {
            Set(try #require(try reader.partitionChanges(since: start.revision)).partitions) == expected
        }
    }
}
