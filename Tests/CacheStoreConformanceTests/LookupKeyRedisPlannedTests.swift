import CacheStore
import CacheStoreRedis
import Foundation
import Testing

/// Additions to PartitionConformanceTests: keys that outlive their partition's items while the
/// partition is emptied and written again, and planned writes on Redis.
@Suite("Lookup keys and planned writes")
struct LookupKeyRedisPlannedTests {
    static func item(_ account: String, _ service: String = "svc", group: String = "group.a") -> StoreItem {
        StoreItem(accessGroup: group, account: account, service: service, generic: nil, type: 2001, data: Data("x".utf8))
    }

    static func id(_ account: String, group: String = "group.a") -> PartitionID { PartitionID(accessGroup: group, account: account) }

    @Test(arguments: Backend.allCases)
    func setLookupKeysReplacesAPartitionsKeysAndTheyOutliveItsItems(backend: Backend) throws {
        let store = try backend.makeStore()
        guard store.keepsLookupKeys else { return }
        try store.apply([
            .save(Self.item("u1-env")), .setLookupKeys(Self.id("u1-env"), keys: ["old"]),
            .save(Self.item("u3-env", group: "group.b")), .setLookupKeys(Self.id("u3-env", group: "group.b"), keys: ["old"]),
            .declareLookupKeysComplete(accessGroup: "group.a"), .declareLookupKeysComplete(accessGroup: "group.b"),
        ])
        #expect(try store.partitions(withLookupKey: "old") == [Self.id("u1-env"), Self.id("u3-env", group: "group.b")])
        try store.apply([.setLookupKeys(Self.id("u1-env"), keys: ["new", "new"])])
        #expect(try store.partitions(withLookupKey: "old") == [Self.id("u3-env", group: "group.b")])
        #expect(try store.partitions(withLookupKey: "new") == [Self.id("u1-env")])
        // Deleting the items leaves the keys; readers check what they find.
        try store.delete(matching: ItemQuery(accessGroup: "group.a", account: "u1-env"))
        #expect(try store.partitions(withLookupKey: "new") == [Self.id("u1-env")])
        #expect(try store.readPartition(accessGroup: "group.a", account: "u1-env").items.isEmpty)
        // No keys removes them.
        try store.apply([.setLookupKeys(Self.id("u1-env"), keys: [])])
        #expect(try store.partitions(withLookupKey: "new") == [])
        // Saving into the partition again leaves it findable by a full read, with no keys.
        try store.save(Self.item("u1-env", "svc2"))
        #expect(try store.allItems().map(\.service).sorted() == ["svc", "svc2"])
    }

    /// Read-modify-writes through applyPlanned from several threads and two handles of one Redis
    /// store never lose an increment (a standalone server watches the store revision).
    @Test func plannedWritesNeverLoseAnUpdateOnRedis() throws {
        guard RedisTestServers.backends.contains(.redis) else { return }
        let stores = try RedisTestServers.makeStores(count: 2, groups: try AccessGroups([ConditionalApplyRegressionTests.group]))
        try ConditionalApplyRegressionTests().checkPlannedIncrements(stores)
    }
}
