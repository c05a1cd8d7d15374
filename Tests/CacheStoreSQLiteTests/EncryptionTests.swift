import CSQLite
import CacheStore
import CacheStoreEncryption
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

@Suite("SQLite encryption at rest")
struct EncryptionTests {
    static let marker = "TOKEN-SECRET-4f1c9b"

    static func items(_ group: String = "g", count: Int = 50) -> [StoreItem] {
        (0..<count).map { index in
            StoreItem(accessGroup: group, account: "uid.utid-login.windows.net", service: "accesstoken-c-t-\(index)",
                      generic: Data("accesstoken-c-t".utf8), type: 2001,
                      data: Data(#"{"secret":"\#(marker)-\#(index)","padding":"\#(String(repeating: "x", count: index * 40))"}"#.utf8))
        }
    }

    static func encryption(_ directory: TemporaryDirectory, name: String = "cache.sqlite") -> SQLiteStore.Options {
        .init(encryption: .init(keySources: [KeyFile(path: directory.path(name + ".key"))]))
    }

    /// Every file of the store (database, -wal, -shm) as bytes.
    static func fileBytes(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] {
            if let data = FileManager.default.contents(atPath: path + suffix) { files[path + suffix] = data }
        }
        return files
    }

    @Test func theFileAndItsWriteAheadLogNeverHoldASecretInPlainBytes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]), options: Self.encryption(directory))
        try store.save(Self.items())
        try store.save(Self.items().map { var item = $0; item.data += Data(" again".utf8); return item })
        try store.delete(matching: ItemQuery(service: "accesstoken-c-t-3"))
        // Checked while the store is open, so the -wal file holds the recent commits.
        let files = Self.fileBytes(path)
        #expect(files[path + "-wal"] != nil)
        for (file, bytes) in files {
            #expect(bytes.range(of: Data(Self.marker.utf8)) == nil, "a secret in plain bytes in \(file)")
        }
        #expect(files.values.contains { $0.range(of: Data("accesstoken-c-t-7".utf8)) != nil }, "attributes stay readable")
        let read = try store.items(matching: ItemQuery(service: "accesstoken-c-t-7"))
        #expect(String(decoding: read[0].data, as: UTF8.self).contains("\(Self.marker)-7\""))
        #expect(try store.itemCounts()["g"]! == (49, 49))
        guard case .available(_, .file) = store.keyStatus["g"] else {
            Issue.record("key status \(String(describing: store.keyStatus["g"]))")
            return
        }
    }

    @Test func plainSchemaOneRowsAreSealedWhenOpenedWithAKeyAndNothingIsLost() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        do {
            let plain = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g", "h"]))
            try plain.save(Self.items("g") + Self.items("h", count: 3))
            // Make it a schema-1 file again, as an older tokencache wrote it.
            try rawSQL(path, "DROP TABLE data_keys; ALTER TABLE items DROP COLUMN envelope; PRAGMA user_version = 1;")
        }
        #expect(Self.fileBytes(path).values.contains { $0.range(of: Data(Self.marker.utf8)) != nil }, "the plain store holds plain secrets")
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g", "h"]), options: Self.encryption(directory))
        #expect(try store.schemaVersion() == 3)
        #expect(try store.allItems().map(\.data) == (Self.items("g") + Self.items("h", count: 3)).map(\.data))
        #expect(try store.itemCounts()["g"]! == (50, 50))
        for (file, bytes) in Self.fileBytes(path) {
            #expect(bytes.range(of: Data(Self.marker.utf8)) == nil, "a plain copy left in \(file)")
        }
    }

    @Test func aStoreCopiedWithoutItsKeyFailsClearlyAndKeepsAttributesReadable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        do {
            let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]), options: Self.encryption(directory))
            try store.save(Self.items(count: 3))
        }
        let copy = directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let stranger = try SQLiteStore(path: copy, accessGroups: try AccessGroups(["g"]), options: Self.encryption(directory, name: "copy.sqlite"))
        #expect {
            _ = try stranger.allItems()
        } throws: { error in
            guard case EncryptionError.keyUnavailable(let group, _, let keptIn, _, _) = error else { return false }
            let text = String(describing: error)
            return group == "g" && keptIn == "file" && text.contains("restore that file") && !text.contains(Self.marker)
        }
        #expect(throws: EncryptionError.self) { try stranger.save(Self.items(count: 1)) }
        #expect(try stranger.itemCounts()["g"]! == (3, 3), "counting needs no key")
        #expect(try stranger.recordedKeys()["g"]?.source == "file")

        // Opened as a plain store, the sealed group can be neither read nor written in plain.
        let plain = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        #expect {
            _ = try plain.allItems()
        } throws: { error in
            guard case EncryptionError.storeOpenedWithoutKey = error else { return false }
            return true
        }
        #expect(throws: EncryptionError.self) { try plain.save(Self.items(count: 1)) }
        #expect(Self.fileBytes(path).values.allSatisfy { $0.range(of: Data(Self.marker.utf8)) == nil })
    }

    @Test func aPayloadMovedToAnotherRowFailsAuthenticationAndIsSkippedAsDamaged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]), options: Self.encryption(directory))
        try store.save(Self.items(count: 2))
        try rawSQL(path, "UPDATE items SET data = (SELECT data FROM items WHERE service = 'accesstoken-c-t-0') WHERE service = 'accesstoken-c-t-1';")
        #expect(try store.items(matching: ItemQuery(service: "accesstoken-c-t-0")).count == 1)
        #expect(try store.items(matching: ItemQuery(service: "accesstoken-c-t-1")).isEmpty, "never read as the other row's payload")
        #expect(try store.damagedItems().map(\.identity.service) == ["accesstoken-c-t-1"])
        #expect(try store.damagedItems().map(\.reason) == [.failedAuthentication])
    }

    @Test func eachAccessGroupHasItsOwnKey() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups(["g", "h"]), options: Self.encryption(directory))
        let keys = try store.recordedKeys()
        #expect(keys["g"] != nil && keys["h"] != nil)
        #expect(keys["g"]?.keyID != keys["h"]?.keyID)
    }
}
