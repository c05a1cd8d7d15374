@testable import CacheStoreSecretService
import CacheStore
import CacheStoreEncryption
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

/// Runs against the real keyring of `scripts/test.sh`'s private D-Bus session. Outside a session
/// these tests are left out locally; with `CI=true` they run, and fail, rather than vanish.
let keyringAvailable = SessionBus.address() != nil || ProcessInfo.processInfo.environment["CI"] == "true"

@Suite("Secret Service store", .enabled(if: keyringAvailable, "needs a D-Bus session with a keyring (scripts/test.sh starts one)"))
struct SecretServiceStoreTests {
    static func store(_ namespace: String, groups: [String] = ["g"], collection: String = "default") throws -> SecretServiceStore {
        try SecretServiceStore(accessGroups: try AccessGroups(groups), options: .init(collection: collection, namespace: namespace))
    }

    static func item(_ account: String, _ service: String, group: String = "g", data: String = "secret") -> StoreItem {
        StoreItem(accessGroup: group, account: account, service: service, generic: Data(service.utf8), type: 2001, data: Data(data.utf8))
    }

    /// `secret-tool search --all` output for the namespace: one block per keyring item.
    static func keyringItems(_ namespace: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = ["search", "--all", "store", namespace]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func onePartitionPerAccessGroupAndAccountWithReadableAttributesAndLabel() throws {
        let namespace = "partitions-\(UUID().uuidString)"
        let store = try Self.store(namespace, groups: ["g", "h"])
        try store.save([
            Self.item("alice-login.windows.net", "accesstoken-1"),
            Self.item("alice-login.windows.net", "refreshtoken-1"),
            Self.item("alice-login.windows.net", "idtoken-1"),
            Self.item("bob-login.windows.net", "accesstoken-1"),
            Self.item("alice-login.windows.net", "accesstoken-1", group: "h"),
        ])
        #expect(try store.partitionCount() == 3)
        let listing = try Self.keyringItems(namespace)
        #expect(listing.contains("label = tokencache: alice-login.windows.net in g"))
        #expect(listing.contains("attribute.access-group = h"))
        #expect(listing.contains("attribute.account = bob-login.windows.net"))
        #expect(listing.contains("attribute.schema-version = 1"))
        #expect(listing.contains("attribute.kind = revision"))
        #expect(!listing.contains("label = tokencache: secret"), "labels carry no secret")
        // Emptying a partition deletes its keyring item.
        try store.delete(matching: ItemQuery(account: "bob-login.windows.net"))
        #expect(try store.partitionCount() == 2)
        #expect(!(try Self.keyringItems(namespace)).contains("bob-login.windows.net"))
    }

    @Test func anotherInstanceSeesCommitsThroughTheChangeStamp() throws {
        let namespace = "stamps-\(UUID().uuidString)"
        let reader = try Self.store(namespace)
        let writer = try Self.store(namespace)
        #expect(try reader.allItems().isEmpty)
        let before = try reader.changeStamp()
        #expect(try reader.changeStamp() == before)
        try writer.save(Self.item("a", "s1"))
        #expect(try reader.changeStamp() != before)
        #expect(try reader.allItems().map(\.service) == ["s1"])
        try writer.save(Self.item("a", "s1", data: "replaced"))
        #expect(try reader.items(matching: ItemQuery(account: "a")).first?.data == Data("replaced".utf8))
    }

    @Test func aFailedBatchRestoresThePartitionsItHadWritten() throws {
        let namespace = "rollback-\(UUID().uuidString)"
        let store = try Self.store(namespace)
        try store.save([Self.item("a", "keep", data: "A0"), Self.item("b", "keep", data: "B0")])
        let before = try store.allItems()
        store.faultInjection.withLock { $0 = { index in if index == 2 { throw CocoaError(.fileWriteUnknown) } } }
        #expect(throws: SecretServiceError.self) {
            try store.apply([
                .save(Self.item("a", "keep", data: "A1")),
                .save(Self.item("b", "new", data: "B1")),
                .save(Self.item("c", "new", data: "C1")),
            ])
        }
        store.faultInjection.withLock { $0 = nil }
        #expect(try store.allItems() == before)
        let fresh = try Self.store(namespace)
        #expect(try fresh.allItems().map(\.data) == [Data("A0".utf8), Data("B0".utf8)])
        #expect(try fresh.allItems() == before, "attributes and dates read back exactly")
        #expect(try fresh.partitionCount() == 2, "the new partition c was removed again")
    }

    @Test func theSessionCollectionWorksAndUnknownCollectionsAreTypedErrors() throws {
        let store = try Self.store("session-\(UUID().uuidString)", collection: "session")
        try store.save(Self.item("a", "s"))
        #expect(try store.allItems().count == 1)
        #expect {
            _ = try Self.store("x", collection: "no-such-collection-\(UUID().uuidString)")
        } throws: { error in
            guard case SecretServiceError.collectionNotFound = error else { return false }
            return String(describing: error).contains("the session collection")
        }
    }

    @Test func aThousandAccountsLoadInOneGo() throws {
        let namespace = "bulk-\(UUID().uuidString)"
        let store = try Self.store(namespace, collection: "session")
        try store.save((0..<200).map { Self.item("user\($0)", "rt") })
        let fresh = try Self.store(namespace, collection: "session")
        let start = ContinuousClock.now
        #expect(try fresh.allItems().count == 200)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func sqliteDataKeysLiveInTheKeyringOnePerAccessGroup() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let groups = ["keys-\(UUID().uuidString)", "keys-\(UUID().uuidString)"]
        let options = SQLiteStore.Options(encryption: .init(keySources: [SecretServiceKeySource()]))
        do {
            let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(groups), options: options)
            try store.save(StoreItem(accessGroup: groups[0], account: "a", service: "s", data: Data("KEYRING-SEALED".utf8)))
            let recorded = try store.recordedKeys()
            #expect(recorded[groups[0]]?.source == "secret-service")
            #expect(recorded[groups[0]]?.keyID != recorded[groups[1]]?.keyID)
        }
        #expect(!FileManager.default.fileExists(atPath: path + ".key"))
        let reopened = try SQLiteStore(path: path, accessGroups: try AccessGroups(groups), options: options)
        #expect(try reopened.allItems().first?.data == Data("KEYRING-SEALED".utf8))
        for bytes in [path, path + "-wal"].compactMap({ FileManager.default.contents(atPath: $0) }) {
            #expect(bytes.range(of: Data("KEYRING-SEALED".utf8)) == nil)
        }
        let listing = try Self.keyringItemsOfSchema("org.tokencache.DataKey", group: groups[0])
        #expect(listing.contains("label = tokencache data key for access group \(groups[0])"))
    }

    static func keyringItemsOfSchema(_ schema: String, group: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = ["search", "--all", "xdg:schema", schema, "access-group", group]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
