import CSQLite
import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

@Suite("SQLite store file")
struct SQLiteStoreFileTests {
    @Test func createsFile0600InDirectories0700AndSidecarsAlike() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let nested = directory.path("a/b/tokencache")
        let path = nested + "/cache.sqlite"
        // A umask that lets others read (and lets a plain creation through at 0644 and 0755) must
        // not widen the modes. Not umask(0): the umask is the process's, and tests running at the
        // same moment would create world-writable files that a store (rightly) refuses.
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        try store.save(StoreItem(accessGroup: "g", account: "a", service: "s", data: Data("x".utf8)))
        #expect(try posixMode(path) == 0o600)
        #expect(try posixMode(path + "-wal") == 0o600)
        #expect(try posixMode(path + "-shm") == 0o600)
        #expect(try posixMode(nested) == 0o700)
        #expect(try posixMode(directory.path("a/b")) == 0o700)
        #expect(try posixMode(directory.path("a")) == 0o700)
        let noLockFiles = try FileManager.default.contentsOfDirectory(atPath: nested).sorted()
        #expect(noLockFiles == ["cache.sqlite", "cache.sqlite-shm", "cache.sqlite-wal"])
    }

    @Test func existingDirectoryAndFileModesAreLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
        _ = try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups(["g"]))
        #expect(try posixMode(directory.url.path) == 0o755)
    }

    @Test func itemsPersistAcrossReopenWithSchemaVersion() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        do {
            let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
            try store.save(StoreItem(accessGroup: "g", account: "a", service: "s", generic: Data(), type: nil, data: Data("x".utf8)))
            #expect(try store.schemaVersion() == 3)
        }
        let reopened = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        let item = try #require(try reopened.allItems().first)
        #expect(item.generic == Data())
        #expect(item.type == nil)
        #expect(try reopened.schemaVersion() == 3)
    }

    @Test func storeOpenedForOneGroupDoesNotSeeAnotherGroupsItemsInTheSameFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let both = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g1", "g2"]))
        try both.save([
            StoreItem(accessGroup: "g1", account: "a", service: "s", data: Data("1".utf8)),
            StoreItem(accessGroup: "g2", account: "a", service: "s", data: Data("2".utf8)),
        ])
        let onlyG1 = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g1"]))
        #expect(try onlyG1.allItems().map(\.accessGroup) == ["g1"])
        #expect(try onlyG1.delete(matching: ItemQuery()) == 1)
        #expect(try both.allItems().map(\.accessGroup) == ["g2"])
    }

    @Test func foreignDatabaseIsRefusedAndLeftUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("other.db")
        try rawSQL(path, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me');")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            _ = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        } throws: { error in
            guard case SQLiteStoreError.notATokenCacheStore = error else { return false }
            return String(describing: error).contains("not a tokencache store")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func newerSchemaIsRefusedAndLeftUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        do { _ = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"])) }
        try rawSQL(path, "PRAGMA user_version = 99;")
        #expect {
            _ = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        } throws: { error in
            guard case SQLiteStoreError.newerSchema(_, let found, let supported) = error else { return false }
            return found == 99 && supported == 3
        }
    }

    @Test func garbageFileGivesAClearErrorAndStaysUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        #expect(writeNoiseFile(atPath: path))
        #expect {
            _ = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        } throws: { error in
            guard case SQLiteStoreError.sqlite(let sqlite) = error else { return false }
            return sqlite.code == SQLITE_NOTADB && String(describing: error).contains(path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == noiseBytes)
    }

    @Test func unwritableLocationGivesAClearError() throws {
        #expect {
            _ = try SQLiteStore(path: "/proc/tokencache/cache.sqlite", accessGroups: try AccessGroups(["g"]))
        } throws: { error in
            guard case SQLiteStoreError.cannotCreate(let path, _) = error else { return false }
            return path == "/proc/tokencache"
        }
    }
}
