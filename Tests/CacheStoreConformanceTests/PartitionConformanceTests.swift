import CacheStore
import Foundation
import Testing

/// The partition part of the store contract: per-partition revisions, catching up by partition, and
/// the lookup-key index. Backends that may answer nil (see ``Backend``) are held to every check once
/// they answer.
@Suite("ItemStore conformance: partitions")
struct PartitionConformanceTests {
    static func item(_ group: String, _ account: String, _ service: String = "svc", data: String = "payload") -> StoreItem {
        StoreItem(accessGroup: group, account: account, service: service, generic: Data("gen".utf8), type: 2001, data: Data(data.utf8))
    }

    static func item(account: String, _ service: String = "svc", data: String = "payload") -> StoreItem {
        item("group.a", account, service, data: data)
    }

    static func partition(_ group: String, _ account: String) -> PartitionID {
        PartitionID(accessGroup: group, account: account)
    }

    /// The changes since `revision`, as a set; nil when the store cannot tell.
    static func changed(_ store: any ItemStore, since revision: ChangeStamp) throws -> Set<PartitionID>? {
        try store.partitionChanges(since: revision).map { Set($0.partitions) }
    }

    // MARK: - readPartition

    @Test(arguments: Backend.allCases)
    func partitionRevisionChangesWithItsPartitionOnly(backend: Backend) throws {
        guard backend.reportsPartitionRevisions else { return }
        let store = try backend.makeStore()
        let empty = try store.readPartition(accessGroup: "group.a", account: "u1")
        #expect(empty.items.isEmpty)
        try store.save(Self.item(account: "u1"))
        let first = try store.readPartition(accessGroup: "group.a", account: "u1")
        #expect(first.items.map(\.account) == ["u1"])
        #expect(first.revision != empty.revision, "a partition's first write changes its revision")

        // Writes to other partitions, including the same account in another group, leave it alone.
        try store.save([Self.item(account: "u2"), Self.item("group.b", "u1")])
        try store.delete(matching: ItemQuery(accessGroup: "group.a", account: "u2"))
        #expect(try store.readPartition(accessGroup: "group.a", account: "u1") == first)

        try store.save(Self.item(account: "u1", data: "replaced"))
        let replaced = try store.readPartition(accessGroup: "group.a", account: "u1")
        #expect(replaced.revision != first.revision)
        #expect(replaced.items.map(\.data) == [Data("replaced".utf8)])

        try store.save(Self.item(account: "u1", "second"))
        let added = try store.readPartition(accessGroup: "group.a", account: "u1")
        #expect(added.revision != replaced.revision)
        #expect(added.items.map(\.service) == ["svc", "second"], "in the order first added")

        try store.delete(matching: ItemQuery(service: "svc"))
        let deleted = try store.readPartition(accessGroup: "group.a", account: "u1")
        #expect(deleted.revision != added.revision, "a delete by a query naming no partition still moves it")
        #expect(deleted.items.map(\.service) == ["second"])
        #expect(try store.readPartition(accessGroup: "group.b", account: "u1").items.isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func readPartitionAgreesWithAQueryAfterManyDeletesAndReAdds(backend: Backend) throws {
        let store = try backend.makeStore()
        let accounts = ["u0", "u1", "u2", "u3"]
        try store.save((0..<200).map { Self.item(account: accounts[$0 % 4], "s\($0)") })
        try store.apply((0..<150).map { .delete(ItemQuery(service: "s\($0)")) })
        try store.save([Self.item(account: "u1", "s1"), Self.item(account: "u2", "late"), Self.item("group.b", "u1", "s1")])
        for account in accounts {
            let read = try store.readPartition(accessGroup: "group.a", account: account)
            #expect(read.items == (try store.items(matching: ItemQuery(accessGroup: "group.a", account: account))), "\(account)")
        }
        #expect(try store.readPartition(accessGroup: "group.a", account: "u1").items.map(\.service).first == "s153")
        #expect(try store.readPartition(accessGroup: "group.a", account: "u1").items.map(\.service).last == "s1")
    }

    @Test(arguments: Backend.allCases)
    func readPartitionRefusesGroupsNotOpen(backend: Backend) throws {
        let store = try backend.makeStore()
        #expect(throws: CacheStoreError.self) { try store.readPartition(accessGroup: "group.other", account: "u1") }
    }

    @Test(arguments: Backend.allCases)
    func partitionRevisionSeesAnotherInstancesCommit(backend: Backend) throws {
        guard backend.reportsPartitionRevisions, let (one, two) = try backend.makeSharedStores() else { return }
        try one.save(Self.item(account: "u1"))
        let before = try two.readPartition(accessGroup: "group.a", account: "u1")
        #expect(before.items.count == 1)
        try one.save(Self.item(account: "u2"))
        #expect(try two.readPartition(accessGroup: "group.a", account: "u1").revision == before.revision)
        try one.save(Self.item(account: "u1", data: "new"))
        var after = try two.readPartition(accessGroup: "group.a", account: "u1")
        let deadline = Date().addingTimeInterval(2)
        while backend.invalidatesAsynchronously, after.revision == before.revision, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.001)
            after = try two.readPartition(accessGroup: "group.a", account: "u1")
        }
        #expect(after.revision != before.revision)
        #expect(after.items.map(\.data) == [Data("new".utf8)])
    }

    // MARK: - partitionChanges

    @Test(arguments: Backend.allCases)
    func partitionChangesListEveryPartitionCommittedTo(backend: Backend) throws {
        let store = try backend.makeStore()
        guard let start = try store.partitionChanges(since: nil) else {
            #expect(!backend.keepsPartitionHistory, "\(backend) must tell partition changes")
            return
        }
        #expect(start.partitions.isEmpty)
        #expect(try Self.changed(store, since: start.revision) == [])

        try store.save([Self.item(account: "u1"), Self.item(account: "u2"), Self.item(account: "u2", "other")])
        try store.save(Self.item("group.b", "u3"))
        let first = try #require(try store.partitionChanges(since: start.revision))
        #expect(Set(first.partitions) == [Self.partition("group.a", "u1"), Self.partition("group.a", "u2"), Self.partition("group.b", "u3")])
        #expect(first.partitions.count == 3, "each partition once")

        try store.save(Self.item(account: "u1", data: "replaced"))
        let second = try #require(try store.partitionChanges(since: first.revision))
        #expect(second.partitions == [Self.partition("group.a", "u1")])

        try store.delete(matching: ItemQuery(accessGroup: "group.a", account: "u2", service: "other"))
        let third = try #require(try store.partitionChanges(since: second.revision))
        #expect(third.partitions == [Self.partition("group.a", "u2")])

        // A delete naming no partition reports each partition it removed from.
        try store.delete(matching: ItemQuery(service: "svc"))
        #expect(try Self.changed(store, since: third.revision) == [
            Self.partition("group.a", "u1"), Self.partition("group.a", "u2"), Self.partition("group.b", "u3"),
        ])
        #expect(try Self.changed(store, since: start.revision)?.count == 3)
        let now = try #require(try store.partitionChanges(since: nil))
        #expect(try Self.changed(store, since: now.revision) == [])

        // Planned batches and batches holding only lookup keys are commits like the others.
        try store.applyPlanned { _, _ in [.save(Self.item(account: "u4")), .setLookupKeys(Self.partition("group.a", "u5"), keys: ["k"])] }
        let planned = try #require(try store.partitionChanges(since: now.revision))
        #expect(planned.partitions == [Self.partition("group.a", "u4")], "keys alone change no partition's items")
    }

    @Test(arguments: Backend.allCases)
    func partitionChangesRefuseRevisionsTheStoreDidNotIssue(backend: Backend) throws {
        let store = try backend.makeStore()
        guard let start = try store.partitionChanges(since: nil) else {
            #expect(!backend.keepsPartitionHistory)
            return
        }
        try store.save(Self.item(account: "u1"))
        let now = try #require(try store.partitionChanges(since: start.revision)).revision
        #expect(try store.partitionChanges(since: ChangeStamp(now.first &+ 1_000, now.second)) == nil, "a revision from the future")
        #expect(try store.partitionChanges(since: ChangeStamp(UInt64.max, UInt64.max)) == nil)
        // Another store's revision, even one with the same count of commits.
        let other = try backend.makeStore()
        try other.save(Self.item(account: "u1"))
        let foreign = try #require(try other.partitionChanges(since: nil)).revision
        #expect(try store.partitionChanges(since: foreign) == nil)
    }

    @Test(arguments: Backend.allCases)
    func partitionChangesSeeAnotherInstancesCommits(backend: Backend) throws {
        guard let (one, two) = try backend.makeSharedStores(second: ["group.a"]) else { return }
        guard let start = try two.partitionChanges(since: nil) else {
            #expect(!backend.keepsPartitionHistory)
            return
        }
        // Redis reports another instance's commit once its invalidation arrives: wait for it there.
        func changes(since revision: ChangeStamp, until expected: Set<PartitionID>) throws -> PartitionChanges? {
            var answer = try two.partitionChanges(since: revision)
            let deadline = Date().addingTimeInterval(2)
            while backend.invalidatesAsynchronously, let current = answer, Set(current.partitions) != expected, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.001)
                answer = try two.partitionChanges(since: revision)
            }
            return answer
        }
        try one.save([Self.item(account: "u1"), Self.item("group.b", "u9")])
        let seen = try #require(try changes(since: start.revision, until: [Self.partition("group.a", "u1")]))
        #expect(seen.partitions == [Self.partition("group.a", "u1")], "group.b is not open in the second instance")
        try one.delete(matching: ItemQuery(accessGroup: "group.a", account: "u1"))
        #expect(try changes(since: seen.revision, until: [Self.partition("group.a", "u1")]).map { Set($0.partitions) } == [Self.partition("group.a", "u1")])
    }

    // MARK: - Lookup keys

    /// The store's lookup-key answer, sorted; nil when it keeps no index (allowed only for some backends).
    static func lookup(_ store: any ItemStore, _ key: String) throws -> [PartitionID]? {
        try store.partitions(withLookupKey: key)?.sorted()
    }

    static func keepsKeys(_ store: any ItemStore, _ backend: Backend) throws -> Bool {
        if store.keepsLookupKeys { return true }
        #expect(!backend.mustKeepLookupKeys, "\(backend) must keep lookup keys")
        #expect(try store.partitions(withLookupKey: "anything") == nil, "a store that keeps no index answers nil")
        return false
    }

    @Test(arguments: Backend.allCases)
    func lookupKeysAreSetReplacedAndRemoved(backend: Backend) throws {
        let store = try backend.makeStore()
        guard try Self.keepsKeys(store, backend) else { return }
        let u1 = Self.partition("group.a", "u1"), u2 = Self.partition("group.a", "u2"), b9 = Self.partition("group.b", "u9")
        #expect(try Self.lookup(store, "alice@contoso.com") == [], "a new store's index is complete and empty")
        try store.apply([.save(Self.item(account: "u1")), .setLookupKeys(u1, keys: ["alice@contoso.com", "al"])])
        #expect(try Self.lookup(store, "alice@contoso.com") == [u1])
        #expect(try Self.lookup(store, "al") == [u1])
        #expect(try Self.lookup(store, "ALICE@contoso.com") == [], "keys are opaque: compared exactly")
        try store.apply([.setLookupKeys(u2, keys: ["alice@contoso.com"]), .setLookupKeys(b9, keys: ["alice@contoso.com", "alice@contoso.com"])])
        #expect(try Self.lookup(store, "alice@contoso.com") == [u1, u2, b9])
        try store.apply([.setLookupKeys(u1, keys: ["alice2"])])
        #expect(try Self.lookup(store, "al") == [])
        #expect(try Self.lookup(store, "alice2") == [u1])
        #expect(try Self.lookup(store, "alice@contoso.com") == [u2, b9])
        try store.apply([.setLookupKeys(u2, keys: [])])
        #expect(try Self.lookup(store, "alice@contoso.com") == [b9])
        // Keys stay when the partition's items go; readers check what they find.
        try store.delete(matching: u1.query)
        #expect(try Self.lookup(store, "alice2") == [u1])
        // Declaring a group complete again changes nothing.
        try store.apply([.declareLookupKeysComplete(accessGroup: "group.a")])
        #expect(try Self.lookup(store, "alice2") == [u1])
    }

    @Test(arguments: Backend.allCases)
    func lookupKeysAreAtomicWithTheirBatch(backend: Backend) throws {
        let store = try backend.makeStore(maximumDataSize: 64)
        guard try Self.keepsKeys(store, backend) else { return }
        let u1 = Self.partition("group.a", "u1")
        try store.apply([.setLookupKeys(u1, keys: ["kept"])])
        #expect(throws: (any Error).self) {
            try store.apply([
                .setLookupKeys(u1, keys: ["lost"]),
                .save(Self.item(account: "u1")),
                .save(Self.item(account: "u1", "big", data: String(repeating: "x", count: 65))),
            ])
        }
        #expect(try Self.lookup(store, "lost") == [])
        #expect(try Self.lookup(store, "kept") == [u1])
        #expect(throws: CacheStoreError.self) {
            try store.apply([.setLookupKeys(u1, keys: ["lost"]), .setLookupKeys(Self.partition("group.other", "u1"), keys: ["x"])])
        }
        #expect(throws: CacheStoreError.self) { try store.apply([.declareLookupKeysComplete(accessGroup: "group.other")]) }
        #expect(try Self.lookup(store, "lost") == [])
        #expect(try store.allItems().isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func lookupKeysAreSharedAndGroupsNotOpenAreInvisible(backend: Backend) throws {
        guard let (one, two) = try backend.makeSharedStores(second: ["group.a"]) else { return }
        guard try Self.keepsKeys(one, backend) else { return }
        let a = Self.partition("group.a", "u1"), b = Self.partition("group.b", "u1")
        try one.apply([.setLookupKeys(a, keys: ["bob"]), .setLookupKeys(b, keys: ["bob"])])
        #expect(try Self.lookup(one, "bob") == [a, b])
        #expect(try Self.lookup(two, "bob") == [a], "group.b is not open in the second instance")
        try two.apply([.setLookupKeys(a, keys: ["robert"])])
        #expect(try Self.lookup(one, "bob") == [b])
        #expect(try Self.lookup(one, "robert") == [a])
    }
}
