import CacheStore
import Foundation
import Testing

/// The store contract (DESIGN.md, "The store contract"), the same for every backend.
@Suite("ItemStore conformance")
struct ItemStoreConformanceTests {
    static func item(
        group: String = "group.a", account: String = "acct", service: String = "svc",
        generic: String? = "gen", type: UInt32? = 2001, data: String = "payload"
    ) -> StoreItem {
        StoreItem(
            accessGroup: group, account: account, service: service,
            generic: generic.map { Data($0.utf8) }, type: type, data: Data(data.utf8))
    }

    @Test(arguments: Backend.allCases)
    func savedItemReadsBackWithAllAttributes(backend: Backend) throws {
        let store = try backend.makeStore()
        let before = Date()
        try store.save(Self.item())
        let items = try store.allItems()
        #expect(items.count == 1)
        let stored = try #require(items.first)
        #expect(stored.accessGroup == "group.a")
        #expect(stored.account == "acct")
        #expect(stored.service == "svc")
        #expect(stored.generic == Data("gen".utf8))
        #expect(stored.type == 2001)
        #expect(stored.data == Data("payload".utf8))
        let created = try #require(stored.created)
        #expect(created.timeIntervalSince1970 >= before.timeIntervalSince1970 - 1)
        #expect(stored.modified == stored.created)
    }

    @Test(arguments: Backend.allCases)
    func sameIdentityReplacesGenericAndDataAndKeepsCreated(backend: Backend) throws {
        let store = try backend.makeStore()
        let first = try store.save(Self.item(generic: "old", data: "one"))
        #expect([first.added, first.replaced, first.deleted] as [Int] == [1, 0, 0])
        let original = try #require(try store.allItems().first)
        Thread.sleep(forTimeInterval: 0.01)
        let second = try store.save(Self.item(generic: "new", data: "two"))
        #expect([second.added, second.replaced, second.deleted] as [Int] == [0, 1, 0])
        let items = try store.allItems()
        #expect(items.count == 1)
        #expect(items[0].generic == Data("new".utf8))
        #expect(items[0].data == Data("two".utf8))
        #expect(items[0].created == original.created)
        #expect(try #require(items[0].modified) > original.modified!)
    }

    @Test(arguments: Backend.allCases)
    func eachIdentityAttributeMakesADistinctItem(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.save([
            Self.item(),
            Self.item(group: "group.b"),
            Self.item(account: "acct2"),
            Self.item(service: "svc2"),
            Self.item(type: 2002),
            Self.item(type: nil),
            // generic is not part of the identity: this replaces the first item.
            Self.item(generic: "other"),
        ])
        #expect(try store.allItems().count == 6)
        #expect(try store.items(matching: ItemQuery(genericString: "other")).count == 1)
    }

    @Test(arguments: Backend.allCases)
    func queriesMatchOnlyTheNamedAttributes(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.save([
            Self.item(account: "u1-env", service: "accesstoken-c-t-read", generic: "accesstoken-c-t", type: 2001),
            Self.item(account: "u2-env", service: "accesstoken-c-t-write", generic: "accesstoken-c-t", type: 2001),
            Self.item(account: "u1-env", service: "refreshtoken-c--", generic: "refreshtoken-c-", type: 2002),
            Self.item(group: "group.b", account: "u1-env", service: "refreshtoken-c--", generic: "refreshtoken-c-", type: 2002),
        ])
        #expect(try store.items(matching: ItemQuery()).count == 4)
        #expect(try store.items(matching: ItemQuery(accessGroup: "group.a")).count == 3)
        #expect(try store.items(matching: ItemQuery(account: "u1-env")).count == 3)
        #expect(try store.items(matching: ItemQuery(accessGroup: "group.a", account: "u1-env")).count == 2)
        #expect(try store.items(matching: ItemQuery(type: 2001)).count == 2)
        #expect(try store.items(matching: ItemQuery(genericString: "accesstoken-c-t", type: 2001)).count == 2)
        #expect(try store.items(matching: ItemQuery(service: "refreshtoken-c--", type: 2002)).count == 2)
        #expect(try store.items(matching: ItemQuery(service: "accesstoken-c-t-write")).map(\.account) == ["u2-env"])
        #expect(try store.items(matching: ItemQuery(type: 2003)).isEmpty)
        #expect(try store.items(matching: ItemQuery(account: "U1-ENV")).isEmpty, "matching is exact, not case-insensitive")
    }

    @Test(arguments: Backend.allCases)
    func genericIsComparedAsBytesAndEmptyDiffersFromAbsent(backend: Backend) throws {
        let store = try backend.makeStore()
        let binary = Data([0x00, 0xFF, 0x10, 0x80])
        try store.save([
            StoreItem(accessGroup: "group.a", account: "a", service: "binary", generic: binary, type: 3001, data: Data("1".utf8)),
            StoreItem(accessGroup: "group.a", account: "a", service: "empty", generic: Data(), type: 3001, data: Data("2".utf8)),
            StoreItem(accessGroup: "group.a", account: "a", service: "absent", generic: nil, type: 3001, data: Data("3".utf8)),
            StoreItem(accessGroup: "group.a", account: "a", service: "prefix", generic: binary.prefix(2), type: 3001, data: Data("4".utf8)),
        ])
        #expect(try store.items(matching: ItemQuery(generic: binary)).map(\.service) == ["binary"])
        #expect(try store.items(matching: ItemQuery(generic: Data())).map(\.service) == ["empty"])
        let absent = try #require(try store.items(matching: ItemQuery(service: "absent")).first)
        #expect(absent.generic == nil)
        let empty = try #require(try store.items(matching: ItemQuery(service: "empty")).first)
        #expect(empty.generic == Data())
    }

    @Test(arguments: Backend.allCases)
    func typeCanBeAskedToBeAbsent(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.save([
            Self.item(service: "MSOpenTech.ADAL.1|x", type: nil),
            Self.item(service: "MSOpenTech.ADAL.1|x", type: 2002),
            Self.item(service: "MSOpenTech.ADAL.1|x", type: 0),
        ])
        #expect(try store.items(matching: ItemQuery(type: .absent)).count == 1)
        #expect(try store.items(matching: ItemQuery(type: .absent)).first?.type == nil)
        #expect(try store.items(matching: ItemQuery(type: 0)).count == 1)
        #expect(try store.item(ItemIdentity(accessGroup: "group.a", account: "acct", service: "MSOpenTech.ADAL.1|x", type: nil))?.type == nil)
        #expect(try store.items(matching: ItemQuery(type: .code(UInt32.max))).isEmpty)
        try store.save(Self.item(service: "max", type: UInt32.max))
        #expect(try store.items(matching: ItemQuery(type: .code(UInt32.max))).map(\.service) == ["max"])
    }

    @Test(arguments: Backend.allCases)
    func deleteRemovesEveryMatchAndOnlyThose(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.save((0..<10).map { Self.item(account: "u\($0 % 2)", service: "s\($0)") })
        try store.save(Self.item(group: "group.b", account: "u0", service: "s0"))
        #expect(try store.delete(matching: ItemQuery(accessGroup: "group.a", account: "u0")) == 5)
        #expect(try store.allItems().count == 6)
        #expect(try store.delete(matching: ItemQuery(account: "nobody")) == 0)
        #expect(try store.delete(matching: ItemQuery(account: "u0")) == 1, "without a group, every allowed group")
        #expect(try store.delete(matching: ItemQuery()) == 5)
        #expect(try store.allItems().isEmpty)
    }

    /// An item added, deleted and added again in one batch counts as added twice; one added and
    /// saved again, as added and replaced.
    @Test(arguments: Backend.allCases)
    func aBatchCountsEachSaveAsItsRowWas(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.save(Self.item(service: "old"))
        let result = try store.apply([
            .save(Self.item(service: "1")),
            .delete(ItemQuery(service: "1")),
            .save(Self.item(service: "1", data: "again")),
            .save(Self.item(service: "1", data: "third")),
            .save(Self.item(service: "old", data: "new")),
            .save(Self.item(service: "old", data: "newer")),
        ])
        #expect([result.added, result.replaced, result.deleted] as [Int] == [2, 3, 1])
        #expect(try store.allItems().map(\.data) == [Data("newer".utf8), Data("third".utf8)])
    }

    @Test(arguments: Backend.allCases)
    func batchAppliesInOrder(backend: Backend) throws {
        let store = try backend.makeStore()
        let result = try store.apply([
            .save(Self.item(service: "1")),
            .save(Self.item(service: "2")),
            .delete(ItemQuery(service: "1")),
            .save(Self.item(service: "2", data: "again")),
            .save(Self.item(service: "3")),
        ])
        #expect([result.added, result.replaced, result.deleted] as [Int] == [3, 1, 1])
        let items = try store.allItems()
        #expect(items.map(\.service) == ["2", "3"])
        #expect(items[0].data == Data("again".utf8))
    }

    @Test(arguments: Backend.allCases)
    func failingBatchLeavesNothingBehind(backend: Backend) throws {
        let store = try backend.makeStore(maximumDataSize: 1024)
        try store.save(Self.item(service: "keep"))
        let stampBefore = try store.changeStamp()
        #expect(throws: CacheStoreError.self) {
            try store.apply([
                .save(Self.item(service: "new")),
                .delete(ItemQuery(service: "keep")),
                .save(Self.item(service: "replaced-then-fails")),
                .save(StoreItem(accessGroup: "group.a", account: "a", service: "big", data: Data(count: 1025))),
            ])
        }
        #expect(try store.allItems().map(\.service) == ["keep"])
        #expect(try store.changeStamp() == stampBefore)
        #expect(throws: CacheStoreError.self) {
            try store.apply([.delete(ItemQuery()), .save(Self.item(group: "not.allowed"))])
        }
        #expect(try store.allItems().map(\.service) == ["keep"])
    }

    @Test(arguments: Backend.allCases)
    func otherAccessGroupsAreRefusedNotEmpty(backend: Backend) throws {
        let store = try backend.makeStore(groups: ["group.a"])
        func expectRefused(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("expected accessGroupNotAllowed")
            } catch CacheStoreError.accessGroupNotAllowed(let group, let allowed) {
                #expect(group == "group.z")
                #expect(allowed == ["group.a"])
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        expectRefused { _ = try store.items(matching: ItemQuery(accessGroup: "group.z")) }
        expectRefused { try store.save(Self.item(group: "group.z")) }
        expectRefused { _ = try store.delete(matching: ItemQuery(accessGroup: "group.z")) }
        #expect(store.accessGroups.primary == "group.a")
    }

    @Test(arguments: Backend.allCases)
    func unicodeAndEmptyStringsAreKeptExactly(backend: Backend) throws {
        let store = try backend.makeStore()
        let composed = "caf\u{E9}"  // é as one scalar
        let decomposed = "cafe\u{301}"  // e + combining acute
        try store.save([
            Self.item(account: "", service: ""),
            Self.item(account: "用户@例子.中国", service: "🔑-accesstoken-ü"),
            Self.item(account: composed, service: "x"),
            Self.item(account: decomposed, service: "x"),
            Self.item(account: "nul\u{0}inside", service: "x"),
        ])
        #expect(try store.allItems().count == 5, "canonically equivalent strings are still different bytes")
        #expect(try store.items(matching: ItemQuery(account: "", service: "")).count == 1)
        #expect(try store.items(matching: ItemQuery(service: "🔑-accesstoken-ü")).first?.account == "用户@例子.中国")
        let byComposed = try store.items(matching: ItemQuery(account: composed))
        #expect(byComposed.count == 1)
        #expect(byComposed.first.map { Array($0.account.unicodeScalars) } == Array(composed.unicodeScalars))
        #expect(try store.items(matching: ItemQuery(account: "nul\u{0}inside")).first?.account == "nul\u{0}inside")
        #expect(try store.items(matching: ItemQuery(account: "nul")).isEmpty)
        #expect(try store.items(matching: ItemQuery(account: "")).first?.account == "")
    }

    @Test(arguments: Backend.allCases)
    func largePayloadsRoundTrip(backend: Backend) throws {
        let store = try backend.makeStore()
        var generator = SystemRandomNumberGenerator()
        let payload = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try store.save(StoreItem(accessGroup: "group.a", account: "big", service: "1MB", data: payload))
        #expect(try store.items(matching: ItemQuery(account: "big")).first?.data == payload)
    }

    @Test(arguments: Backend.allCases)
    func emptyPayloadAndEmptyBatch(backend: Backend) throws {
        let store = try backend.makeStore()
        #expect(try store.apply([]) == BatchResult())
        #expect(try store.apply([]).commit == nil)
        try store.save(StoreItem(accessGroup: "group.a", account: "a", service: "s", data: Data()))
        #expect(try store.allItems().first?.data == Data())
    }

    @Test(arguments: Backend.allCases)
    func resultsComeInInsertionOrder(backend: Backend) throws {
        let store = try backend.makeStore()
        let services = ["m", "c", "x", "a", "q"]
        try store.save(services.map { Self.item(service: $0) })
        try store.save(Self.item(service: "c", data: "replaced keeps its place"))
        #expect(try store.allItems().map(\.service) == services)
    }

    @Test(arguments: Backend.allCases)
    func changeStampMovesOnWritesOnly(backend: Backend) throws {
        let store = try backend.makeStore()
        let initial = try store.changeStamp()
        _ = try store.allItems()
        #expect(try store.changeStamp() == initial)
        try store.save(Self.item())
        let afterSave = try store.changeStamp()
        #expect(afterSave != initial)
        try store.delete(matching: ItemQuery())
        #expect(try store.changeStamp() != afterSave)
    }

    @Test(arguments: Backend.allCases)
    func commitStampsFrameTheBatch(backend: Backend) throws {
        let store = try backend.makeStore()
        let before = try store.changeStamp()
        let first = try store.save(Self.item())
        let commit = try #require(first.commit)
        #expect(commit.base == before)
        #expect(commit.result == (try store.changeStamp()))
        #expect(commit.result != commit.base)
        let second = try store.save(Self.item(service: "other"))
        #expect(second.commit?.base == commit.result, "no commit in between: the next batch starts where this one ended")
    }

    @Test(arguments: Backend.allCases)
    func manyItemsAndPointLookups(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.save((0..<2000).map { Self.item(account: "u\($0 % 100)", service: "s\($0)", type: 2001 + UInt32($0 % 3)) })
        #expect(try store.allItems().count == 2000)
        #expect(try store.items(matching: ItemQuery(account: "u7")).count == 20)
        let identity = ItemIdentity(accessGroup: "group.a", account: "u42", service: "s1042", type: 2001 + 1042 % 3)
        #expect(try store.item(identity)?.service == "s1042")
        #expect(try store.delete(matching: ItemQuery(type: 2001)) == 667)
        #expect(try store.allItems().count == 1333)
        #expect(try store.item(identity) != nil)
    }

    @Test(arguments: Backend.allCases)
    func chunkedReadHandsOverEveryItemInOrder(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.save((0..<23).map { Self.item(account: "acct-\($0)", data: "payload \($0)") })
        let all = try store.allItems()
        for size in [1, 5, 23, 100] {
            var chunks: [[StoreItem]] = []
            try store.readAllItems(chunkSize: size) { chunks.append($0) }
            #expect(chunks.flatMap { $0 } == all, "chunk size \(size)")
            #expect(chunks.dropLast().allSatisfy { $0.count == size }, "chunk size \(size)")
            #expect(chunks.count == (all.count + size - 1) / size)
        }
        var nothing = 0
        try backend.makeStore().readAllItems(chunkSize: 4) { _ in nothing += 1 }
        #expect(nothing == 0)
    }

    @Test(arguments: Backend.allCases)
    func partitionReadHasThePartitionsItemsAndARevisionThatMovesWithIt(backend: Backend) throws {
        let store = try backend.makeStore()
        try store.save([
            Self.item(account: "u1", service: "a"), Self.item(account: "u1", service: "b"),
            Self.item(account: "u2", service: "a"), Self.item(group: "group.b", account: "u1", service: "a"),
        ])
        let read = try store.readPartition(accessGroup: "group.a", account: "u1")
        #expect(read.items.map(\.service) == ["a", "b"])
        #expect(read.items == (try store.items(matching: ItemQuery(accessGroup: "group.a", account: "u1"))))
        #expect(try store.readPartition(accessGroup: "group.a", account: "u1").revision == read.revision)
        try store.save(Self.item(account: "u1", service: "c"))
        let after = try store.readPartition(accessGroup: "group.a", account: "u1")
        #expect(after.revision != read.revision)
        #expect(after.items.count == 3)
        #expect(try store.readPartition(accessGroup: "group.a", account: "nobody").items.isEmpty)
        #expect(throws: CacheStoreError.self) { try store.readPartition(accessGroup: "group.z", account: "u1") }
    }
}
