import CacheStore
import CacheStoreMemory
import Foundation
import Testing

/// What the conformance suite does not cover: the memory store's own bookkeeping.
@Suite struct MemoryStoreTests {
    @Test func manyDeletesCompactWithoutLosingOrderOrIdentity() throws {
        let store = MemoryStore(accessGroups: try AccessGroups(["g"]))
        try store.save((0..<500).map { StoreItem(accessGroup: "g", account: "a", service: "\($0)", data: Data()) })
        for index in stride(from: 0, to: 500, by: 2) {
            try store.delete(matching: ItemQuery(service: "\(index)"))
        }
        let remaining = try store.allItems().map(\.service)
        #expect(remaining == stride(from: 1, to: 500, by: 2).map { "\($0)" })
        try store.save(StoreItem(accessGroup: "g", account: "a", service: "7", data: Data("new".utf8)))
        #expect(try store.item(ItemIdentity(accessGroup: "g", account: "a", service: "7", type: nil))?.data == Data("new".utf8))
        #expect(try store.allItems().count == 250)
    }

    @Test func pruningRemovedPartitionsTellsRevisionsFromBeforeToReadAgain() throws {
        let store = MemoryStore(accessGroups: try AccessGroups(["g"]))
        let bob = PartitionID(accessGroup: "g", account: "bob")
        _ = try store.apply([
            .save(StoreItem(accessGroup: "g", account: "alice", service: "s", data: Data())),
            .save(StoreItem(accessGroup: "g", account: "bob", service: "s", data: Data())), .setLookupKeys(bob, keys: ["u:bob"]),
        ])
        let behind = try #require(try store.partitionChanges(since: nil)).revision
        try store.delete(matching: ItemQuery(account: "bob"))
        let caughtUp = try #require(try store.partitionChanges(since: behind))
        #expect(caughtUp.partitions == [bob])
        #expect(try store.pruneRemovedPartitions() == PrunedRecords(partitions: 1, lookupKeys: 1))
        #expect(try store.partitions(withLookupKey: "u:bob") == [])
        #expect(try store.partitionChanges(since: behind) == nil, "the pruned removal cannot be told any more")
        #expect(try store.partitionChanges(since: caughtUp.revision)?.partitions == [], "a holder that saw it is not sent back")
        try store.save(StoreItem(accessGroup: "g", account: "bob", service: "again", data: Data()))
        #expect(try store.partitionChanges(since: caughtUp.revision)?.partitions == [bob])
        #expect(try store.pruneRemovedPartitions() == PrunedRecords())
    }

    @Test func datesComeFromTheInjectedClock() throws {
        let store = MemoryStore(accessGroups: try AccessGroups(["g"]), clock: { Date(timeIntervalSince1970: 1000) })
        try store.save(StoreItem(accessGroup: "g", account: "a", service: "s", data: Data()))
        #expect(try store.allItems().first?.created == Date(timeIntervalSince1970: 1000))
    }
}
