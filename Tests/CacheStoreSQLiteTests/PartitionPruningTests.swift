import CacheStore
@testable import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

/// `pruneRemovedPartitions()`: the `partitions` rows (revision tombstones) and lookup keys of
/// partitions that hold no items, with two handles on one file standing for two processes.
@Suite("SQLite store: pruning removed partitions")
struct PartitionPruningTests {
    @Test("pruned rows start a new epoch: a handle behind re-reads, and a partition made again never looks unchanged")
    func pruningKeepsRevisionsHonest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let writer = try PartitionSchemaTests.open(path, ["g"])
        let reader = try PartitionSchemaTests.open(path, ["g"])
        let alice = PartitionID(accessGroup: "g", account: "alice")
        let bob = PartitionID(accessGroup: "g", account: "bob")
        _ = try writer.apply([
            .save(PartitionSchemaTests.item("g", "alice")), .save(PartitionSchemaTests.item("g", "bob")),
            .setLookupKeys(bob, keys: ["u:bob"]),
        ])
        // The reader has caught up to here and holds bob's items.
        let behind = try #require(try reader.partitionChanges(since: nil)).revision
        let bobBefore = try reader.readPartition(accessGroup: "g", account: "bob").revision

        try writer.delete(matching: ItemQuery(accessGroup: "g", account: "bob"))
        #expect(try reader.partitionChanges(since: behind)?.partitions == [bob], "the row is what tells of the removal")
        #expect(try rawInteger(path, "SELECT count(*) FROM partitions") == 2)
        #expect(try rawInteger(path, "SELECT count(*) FROM lookup_keys") == 1)

        #expect(try writer.pruneRemovedPartitions() == PrunedRecords(partitions: 1, lookupKeys: 1))
        #expect(try rawInteger(path, "SELECT count(*) FROM partitions") == 1)
        #expect(try rawInteger(path, "SELECT count(*) FROM lookup_keys") == 0)
        #expect(try reader.partitions(withLookupKey: "u:bob") == [])
        // Without the row the removal could not be told: a revision from before the prune is unknown.
        #expect(try reader.partitionChanges(since: behind) == nil)
        try writer.save([PartitionSchemaTests.item("g", "bob", "again")])
        #expect(try reader.partitionChanges(since: behind) == nil)
        #expect(try reader.readPartition(accessGroup: "g", account: "bob").revision != bobBefore)
        #expect(try reader.readPartition(accessGroup: "g", account: "bob").items.map(\.service) == ["again"])

        // From a revision of the new epoch, changes are told as before; nothing left to prune.
        let fresh = try #require(try reader.partitionChanges(since: nil)).revision
        try writer.save([PartitionSchemaTests.item("g", "alice", "second")])
        #expect(try reader.partitionChanges(since: fresh)?.partitions == [alice])
        #expect(try writer.pruneRemovedPartitions() == PrunedRecords())
        #expect(try reader.partitionChanges(since: fresh) != nil, "a prune that removes nothing keeps the epoch")
    }

    @Test("only the open groups are pruned")
    func otherGroupsAreLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let both = try PartitionSchemaTests.open(path, ["g", "h"])
        try both.save([PartitionSchemaTests.item("g", "carol"), PartitionSchemaTests.item("h", "carol")])
        try both.delete(matching: ItemQuery(account: "carol"))
        #expect(try PartitionSchemaTests.open(path, ["g"]).pruneRemovedPartitions() == PrunedRecords(partitions: 1))
        #expect(try rawInteger(path, "SELECT count(*) FROM partitions WHERE access_group = 'h'") == 1)
    }
}
