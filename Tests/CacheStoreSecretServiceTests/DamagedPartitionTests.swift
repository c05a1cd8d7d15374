@testable import CacheStoreSecretService
import CacheStore
import Foundation
import TestSupport
import Testing

/// A partition item whose secret is not a tokencache partition, in the real keyring of
/// `scripts/with-keyring.sh`: skipped and counted, never failing the reads of other users.
@Suite(
    "Secret Service: damaged partitions", .serialized,
    .enabled(if: keyringAvailable, "needs a D-Bus session with a keyring (scripts/test.sh starts one)"))
struct DamagedPartitionTests {
    /// Replaces the partition's keyring item (same attributes) with `secret`, as another program could.
    static func corrupt(_ store: SecretServiceStore, account: String, secret: String) throws {
        let key = PartitionKey(group: "g", account: account)
        try store.connection.store(
            label: "planted", attributes: store.attributes(kind: "partition") + [
                ("access-group", "g"), ("account", account), ("partition", key.digest), ("schema-version", "1"),
            ], secret: Data(secret.utf8), contentType: "application/octet-stream")
    }

    static func accounts(_ store: SecretServiceStore) throws -> Set<String> { Set(try store.allItems().map(\.account)) }

    @Test func aDamagedPartitionIsSkippedCountedReplacedByAWriteAndRemovedByRepair() throws {
        let namespace = "damaged-\(UUID().uuidString)"
        let store = try SecretServiceStoreTests.store(namespace)
        try store.save(["alice", "bob", "carol"].map { SecretServiceStoreTests.item($0, "rt-1") })
        try Self.corrupt(store, account: "bob", secret: "TCP\u{1}cut short, with a secret-looking tail")

        let other = try SecretServiceStoreTests.store(namespace)
        #expect(try Self.accounts(other) == ["alice", "carol"])
        #expect(other.damagedItemCount() == 1)
        let damaged = try other.damagedItems()
        #expect(damaged.count == 1)
        #expect(damaged.first?.reason == .unreadablePartition)
        #expect(damaged.first?.identity.accessGroup == "g")
        #expect(damaged.first?.location?.hasPrefix("keyring item /org/freedesktop/secrets/collection/") == true, "\(damaged)")
        let text = damaged.first?.description ?? ""
        #expect(!text.contains("secret-looking"), "\(text)")

        // Another partition is written as usual.
        try other.save(SecretServiceStoreTests.item("dave", "rt-1"))
        #expect(try Self.accounts(try SecretServiceStoreTests.store(namespace)) == ["alice", "carol", "dave"])
        // A write to the damaged partition makes a new item beside it (as every first write of a
        // partition does); the damaged one stays, counted, until a repair.
        try other.save(SecretServiceStoreTests.item("bob", "rt-2", data: "new"))
        let fresh = try SecretServiceStoreTests.store(namespace)
        #expect(try Self.accounts(fresh) == ["alice", "bob", "carol", "dave"])
        #expect(try fresh.items(matching: ItemQuery(account: "bob")).map(\.service) == ["rt-2"])
        #expect(fresh.damagedItemCount() == 1)
        let listing = try SecretServiceStoreTests.keyringItems(namespace)
        #expect(listing.components(separatedBy: "attribute.account = bob\n").count - 1 == 2, "\(listing)")

        // repair deletes the damaged items and nothing else.
        try Self.corrupt(store, account: "carol", secret: "not a partition at all")
        #expect(try fresh.removeDamagedItems() == 2)
        let after = try SecretServiceStoreTests.store(namespace)
        #expect(try Self.accounts(after) == ["alice", "bob", "dave"])
        #expect(try after.items(matching: ItemQuery(account: "bob")).map(\.service) == ["rt-2"])
        #expect(try after.damagedItems().isEmpty)
        #expect(!(try SecretServiceStoreTests.keyringItems(namespace)).contains("attribute.account = carol"))
    }

    @Test func twoCopiesOfOnePartitionReadAsTheirUnion() throws {
        let namespace = "copies-\(UUID().uuidString)"
        let store = try SecretServiceStoreTests.store(namespace)
        try store.save(SecretServiceStoreTests.item("erin", "at-1"))
        // A second keyring item for the same partition, as two first writers at once could leave
        // (different label, so the keyring creates it rather than replacing the first).
        let key = PartitionKey(group: "g", account: "erin")
        let entry = PartitionEntry(item: SecretServiceStoreTests.item("erin", "rt-1"), order: 1)
        try store.connection.store(
            label: "second copy", attributes: store.attributes(kind: "partition") + [
                ("access-group", "g"), ("account", "erin"), ("partition", key.digest), ("schema-version", "1"), ("copy", "2"),
            ], secret: PartitionCodec.encode(key, [entry]), contentType: "application/octet-stream")
        let other = try SecretServiceStoreTests.store(namespace)
        #expect(Set(try other.items(matching: ItemQuery(account: "erin")).map(\.service)) == ["at-1", "rt-1"])
    }
}
