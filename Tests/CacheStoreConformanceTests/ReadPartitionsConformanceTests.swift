import CacheStore
import Foundation
import Testing

/// `readPartitions(_:)`: several partitions at once, each answered as `readPartition` answers it.
@Suite("ItemStore conformance: batched partition reads")
struct ReadPartitionsConformanceTests {
    static func item(_ group: String, _ account: String, _ service: String, data: String = "payload") -> StoreItem {
        StoreItem(accessGroup: group, account: account, service: service, generic: nil, type: 2001, data: Data(data.utf8))
    }

    static func id(_ group: String, _ account: String) -> PartitionID { PartitionID(accessGroup: group, account: account) }

    @Test(arguments: Backend.allCases)
    func eachAnswerIsTheSingleReadInTheOrderAsked(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.save([
            Self.item("group.a", "u1", "s1"), Self.item("group.a", "u2", "s1"), Self.item("group.a", "u1", "s2"),
            Self.item("group.b", "u1", "s1"),
        ])
        let ids = [Self.id("group.a", "u2"), Self.id("group.a", "none"), Self.id("group.a", "u1"), Self.id("group.b", "u1"), Self.id("group.a", "u2")]
        let together = try store.readPartitions(ids)
        let alone = try ids.map { try store.readPartition(accessGroup: $0.accessGroup, account: $0.account) }
        #expect(together.map(\.items) == alone.map(\.items))
        #expect(together.map { $0.items.map(\.service) } == [["s1"], [], ["s1", "s2"], ["s1"], ["s1"]])
        if backend.reportsPartitionRevisions { #expect(together.map(\.revision) == alone.map(\.revision)) }
        #expect(try store.readPartitions([]).isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func aWriteMovesOnlyItsPartitionsRevision(backend: Backend) throws {
        guard backend.reportsPartitionRevisions, let (one, two) = try backend.makeSharedStores() else { return }
        try one.save([Self.item("group.a", "u1", "s1"), Self.item("group.a", "u2", "s1")])
        let ids = [Self.id("group.a", "u1"), Self.id("group.a", "u2")]
        let before = try two.readPartitions(ids)
        try one.save(Self.item("group.a", "u1", "s1", data: "new"))
        var after = try two.readPartitions(ids)
        let deadline = Date().addingTimeInterval(5)
        while backend.invalidatesAsynchronously, after[0].revision == before[0].revision, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.001)
            after = try two.readPartitions(ids)
        }
        #expect(after[0].revision != before[0].revision)
        #expect(after[0].items.map(\.data) == [Data("new".utf8)])
        #expect(after[1] == before[1])
    }

    @Test(arguments: Backend.allCases)
    func aGroupNotOpenIsRefused(backend: Backend) throws {
        let store = try backend.makeStore()
        #expect(throws: CacheStoreError.self) { try store.readPartitions([Self.id("group.a", "u1"), Self.id("group.other", "u1")]) }
    }
}
