import CacheStore
import CacheStoreEncryption
@testable import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

/// Schema 3 (partitions and lookup keys): the migration from schema 2, and its tables as input from
/// anyone who can write the file.
@Suite("SQLite store: partitions and lookup keys")
struct PartitionSchemaTests {
    static func item(_ group: String, _ account: String, _ service: String = "s") -> StoreItem {
        StoreItem(accessGroup: group, account: account, service: service, generic: nil, type: 2001, data: Data("x".utf8))
    }

    static func open(_ path: String, _ groups: [String]) throws -> SQLiteStore {
        try SQLiteStore(path: path, accessGroups: try AccessGroups(groups))
    }

    /// Turns a store file into one as tokencache's schema 2 wrote it.
    static func makeSchemaTwo(_ path: String) throws {
        try rawSQL(path, """
            DROP TABLE store_revision; DROP TABLE partitions; DROP TABLE lookup_keys; DROP TABLE lookup_keys_incomplete;
            PRAGMA user_version = 2;
            """)
    }

    @Test func aNewStoreIsAtSchemaThreeWithACompleteIndex() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try Self.open(directory.path("cache.sqlite"), ["g", "h"])
        #expect(try store.schemaVersion() == 3)
        #expect(store.keepsLookupKeys)
        #expect(try store.partitions(withLookupKey: "alice") == [])
        #expect(try store.partitionChanges(since: nil)?.partitions == [])
    }

    @Test("a schema-2 store holding items: its groups answer nil until declared complete, empty groups at once")
    func migratedStoreIsIncompleteUntilDeclared() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        try Self.open(path, ["g", "h"]).save([Self.item("g", "alice"), Self.item("g", "bob")])
        try Self.makeSchemaTwo(path)

        let store = try Self.open(path, ["g", "h"])
        let other = try Self.open(path, ["g"])
        #expect(try store.schemaVersion() == 3)
        #expect(try store.allItems().count == 2)
        #expect(store.keepsLookupKeys)
        #expect(try store.partitions(withLookupKey: "alice") == nil)
        #expect(try Self.open(path, ["h"]).partitions(withLookupKey: "alice") == [], "a group that held nothing is complete")
        let alice = PartitionID(accessGroup: "g", account: "alice")
        _ = try store.apply([.setLookupKeys(alice, keys: ["alice"])])
        #expect(try store.partitions(withLookupKey: "alice") == nil, "keys alone do not make the group complete")
        _ = try store.apply([.declareLookupKeysComplete(accessGroup: "g")])
        #expect(try store.partitions(withLookupKey: "alice") == [alice])
        #expect(try other.partitions(withLookupKey: "alice") == [alice], "seen by another instance")

        // Partitions written before schema 3 have revision 0 of this file's epoch; a write moves them.
        let before = try store.readPartition(accessGroup: "g", account: "bob")
        #expect(before.items.count == 1)
        #expect(before.revision.first == 0)
        let start = try #require(try store.partitionChanges(since: nil))
        try other.save(Self.item("g", "bob", "t"))
        #expect(try store.readPartition(accessGroup: "g", account: "bob").revision != before.revision)
        #expect(try store.partitionChanges(since: start.revision)?.partitions == [PartitionID(accessGroup: "g", account: "bob")])
        #expect(try store.readPartition(accessGroup: "g", account: "alice").revision.first == 0)
        #expect(try store.integrityCheck().isEmpty)
    }

    @Test("in a sealed group lookup keys are kept blinded; a plain group's keys are blinded when its key is first recorded")
    func blindedLookupKeys() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let alice = PartitionID(accessGroup: "g", account: "alice")
        let plain = try Self.open(path, ["g"])
        _ = try plain.apply([.save(Self.item("g", "alice")), .setLookupKeys(alice, keys: ["alice@contoso.com"])])
        #expect(Self.fileContains(path, "alice@contoso.com"))
        let options = SQLiteStore.Options(encryption: .init(keySources: [KeyFile(path: directory.path("cache.sqlite.key"))]))
        let sealed = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]), options: options)
        #expect(try sealed.partitions(withLookupKey: "alice@contoso.com") == [alice])
        _ = try sealed.apply([.setLookupKeys(PartitionID(accessGroup: "g", account: "bob"), keys: ["bob@contoso.com"])])
        #expect(try sealed.partitions(withLookupKey: "bob@contoso.com") == [PartitionID(accessGroup: "g", account: "bob")])
        #expect(try sealed.partitions(withLookupKey: "carol@contoso.com") == [])
        for name in ["alice@contoso.com", "bob@contoso.com"] {
            #expect(!Self.fileContains(path, name), "\(name) is stored in the clear")
        }
        // An opener without the key can neither set nor look up keys of the sealed group.
        #expect(throws: (any Error).self) { try plain.partitions(withLookupKey: "alice@contoso.com") }
        #expect(throws: (any Error).self) { try plain.apply([.setLookupKeys(alice, keys: ["x"])]) }
    }

    /// Whether the store's files (database, log) hold `text`.
    static func fileContains(_ path: String, _ text: String) -> Bool {
        ["", "-wal"].contains { suffix in
            (FileManager.default.contents(atPath: path + suffix) ?? Data()).range(of: Data(text.utf8)) != nil
        }
    }

    @Test("a damaged or reset revision counter: no crash, no answer from it, and the next commit starts a new epoch")
    func damagedCounter() throws {
        for damage in [
            "UPDATE store_revision SET revision = 'many'",
            "UPDATE store_revision SET revision = 9223372036854775807",
            "UPDATE store_revision SET revision = -5",
            "UPDATE store_revision SET epoch = X'00'",
            "DELETE FROM store_revision",
        ] {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let path = directory.path("cache.sqlite")
            let store = try Self.open(path, ["g"])
            try store.save([Self.item("g", "alice"), Self.item("g", "bob")])
            let start = try #require(try store.partitionChanges(since: nil))
            let bob = try store.readPartition(accessGroup: "g", account: "bob")
            try rawSQL(path, damage)
            #expect(try store.partitionChanges(since: start.revision) == nil, "\(damage)")
            #expect(try store.partitionChanges(since: nil) == nil, "\(damage)")
            #expect(try store.readPartition(accessGroup: "g", account: "alice").items.count == 1)

            try store.save(Self.item("g", "alice", "t"))
            let restarted = try #require(try store.partitionChanges(since: nil), "\(damage)")
            #expect(restarted.revision.first == 1)
            #expect(try store.partitionChanges(since: start.revision) == nil, "the old epoch's revisions are unknown: \(damage)")
            #expect(try store.readPartition(accessGroup: "g", account: "bob").revision != bob.revision, "\(damage)")
            try store.save(Self.item("g", "bob", "t"))
            #expect(try store.partitionChanges(since: restarted.revision)?.partitions == [PartitionID(accessGroup: "g", account: "bob")])
            #expect(try store.integrityCheck().isEmpty)
        }
    }

    @Test("forged partition and lookup-key rows: values of the wrong type or size and groups not open are survived or ignored")
    func forgedRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let store = try Self.open(path, ["g"])
        try store.save(Self.item("g", "alice"))
        let start = try #require(try store.partitionChanges(since: nil))
        try rawSQL(path, """
            INSERT INTO partitions VALUES ('g', 'text', 'not a number'), ('g', 'huge', 9223372036854775807),
                ('g', 'negative', -1), ('g', 'blob', X'00ff'), ('secret.group', 'carol', 99), (X'67', 'blob-group', 99);
            INSERT INTO lookup_keys VALUES ('secret.group', 'alice', 'carol'), ('g', X'616c696365', 'blob-key'),
                ('g', 'alice', 'alice');
            INSERT INTO lookup_keys_incomplete VALUES ('secret.group');
            """)
        let changes = try #require(try store.partitionChanges(since: start.revision))
        // Values no commit wrote may read as changed (a re-read costs nothing wrong); other groups never show.
        #expect(!changes.partitions.contains { $0.accessGroup != "g" })
        #expect(!changes.partitions.contains { $0.account == "negative" })
        #expect(try store.partitions(withLookupKey: "alice") == [PartitionID(accessGroup: "g", account: "alice")])
        #expect(try store.readPartition(accessGroup: "g", account: "text").items.isEmpty)
        #expect(try store.readPartition(accessGroup: "g", account: "huge").revision.first == UInt64(Int64.max))
        try store.save(Self.item("g", "huge"))
        #expect(try store.readPartition(accessGroup: "g", account: "huge").items.count == 1)
        #expect(try store.integrityCheck().isEmpty)
        #expect(try Self.open(path, ["secret.group"]).partitions(withLookupKey: "alice") == nil)
    }

    @Test("a store whose partition table was dropped fails writes with a typed error and keeps its items")
    func droppedTable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let store = try Self.open(path, ["g"])
        try store.save(Self.item("g", "alice"))
        let start = try #require(try store.partitionChanges(since: nil))
        try rawSQL(path, "DROP TABLE partitions")
        #expect(throws: SQLiteStoreError.self) { try store.save(Self.item("g", "bob")) }
        #expect(throws: SQLiteStoreError.self) { try store.partitionChanges(since: start.revision) }
        #expect(throws: SQLiteStoreError.self) { try store.readPartition(accessGroup: "g", account: "alice") }
        #expect(try store.allItems().map(\.account) == ["alice"])
        #expect(try store.integrityCheck().isEmpty)
    }
}
