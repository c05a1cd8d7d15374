import CacheStore
import CacheStoreEncryption
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The store file as input from someone else: rows forged or damaged by anyone who can write it,
/// and files planted or loosened by another user.
@Suite("SQLite store: trust nothing on disk")
struct UntrustedStoreFileTests {
    static func item(_ account: String, _ service: String, group: String = "g") -> StoreItem {
        StoreItem(accessGroup: group, account: account, service: service, generic: Data(service.utf8), type: 2002,
                  data: Data(#"{"secret":"RT-\#(account)-\#(service)"}"#.utf8))
    }

    static func open(_ directory: TemporaryDirectory, groups: [String] = ["g"]) throws -> SQLiteStore {
        try SQLiteStore(
            path: directory.path("cache.sqlite"), accessGroups: try AccessGroups(groups),
            options: .init(encryption: .init(keySources: [KeyFile(path: directory.path("cache.sqlite.key"))])))
    }

    // MARK: - Class 2: a row without a valid seal in a sealed group is never trusted

    @Test("a plain row forged into a sealed group is never returned, never sealed in, and listed as damaged")
    func forgedPlainRow() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        try Self.open(directory).save([Self.item("alice", "rt"), Self.item("bob", "rt")])
        try rawSQL(path, """
            INSERT INTO items (access_group, account, service, type, generic, data, created, modified, envelope)
            VALUES ('g', 'mallory', 'rt', 2002, X'7274', CAST('{"secret":"INJECTED"}' AS BLOB), 0, 0, 0);
            """)
        for _ in 0..<2 {  // and after another open, which must not seal it
            let store = try Self.open(directory)
            #expect(Set(try store.allItems().map(\.account)) == ["alice", "bob"])
            #expect(store.damagedItemCount() == 1)
            #expect(try store.items(matching: ItemQuery(account: "mallory")).isEmpty)
            #expect(try store.damagedItems() == [
                DamagedItem(identity: ItemIdentity(accessGroup: "g", account: "mallory", service: "rt", type: 2002), reason: .unsealedInSealedGroup)
            ])
            #expect(try store.itemCounts()["g"]! == (3, 2), "the forged row stays plain: never sealed in")
        }
    }

    @Test("plain rows are sealed once, when the group's key is first created, and not by later opens")
    func sealingIsAOneTimeMigration() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"])).save([Self.item("alice", "rt")])
        let store = try Self.open(directory)
        #expect(try store.itemCounts()["g"]! == (1, 1))
        #expect(try store.allItems().map(\.account) == ["alice"])
        #expect(store.damagedItemCount() == 0)
    }

    // MARK: - Class 3: one damaged row never takes the store down

    @Test("one flipped byte in one sealed row: everything else reads, the row is counted, listed and removed atomically")
    func flippedByte() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let writer = try Self.open(directory)
        try writer.save((0..<20).map { Self.item("user-\($0)", "rt") })
        // Flip one byte in the middle of one sealed payload.
        try rawSQL(path, """
            UPDATE items SET data = substr(data, 1, 20) || CASE WHEN substr(data, 21, 1) = X'00' THEN X'01' ELSE X'00' END || substr(data, 22)
            WHERE account = 'user-7';
            """)
        let store = try Self.open(directory)
        let all = try store.allItems()
        #expect(all.count == 19)
        #expect(!all.contains { $0.account == "user-7" })
        #expect(store.damagedItemCount() == 1)
        #expect(try store.items(matching: ItemQuery(account: "user-3")).count == 1, "other users' lookups work")
        let damaged = try store.damagedItems()
        #expect(damaged.map(\.identity.account) == ["user-7"])
        #expect(!damaged.description.contains("RT-"), "never the payload")
        #expect(try store.removeDamagedItems() == 1)
        #expect(try store.damagedItems().isEmpty)
        #expect(try store.allItems().count == 19)
        #expect(try store.removeDamagedItems() == 0)
        // A new save of the same identity is sound again.
        try store.save(Self.item("user-7", "rt"))
        #expect(try store.allItems().count == 20)
    }

    // MARK: - Class 4: files planted or loosened by someone else are not used

    /// Whether this process may give files away (root, as in CI): the other-owner cases need it.
    static var canChown: Bool { geteuid() == 0 }

    static func expectRefused(_ directory: TemporaryDirectory, naming fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            _ = try Self.open(directory)
        } throws: { error in
            guard case SQLiteStoreError.unsafeFile(let path, let problem, _) = error else { return false }
            return path.hasSuffix(fragment) && !problem.isEmpty && ErrorCategory(of: error) == .permission
        }
    }

    @Test("a store file writable by others is refused and left unchanged")
    func looseMode() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        try Self.open(directory).save(Self.item("alice", "rt"))
        chmod(path, 0o666)
        let before = FileManager.default.contents(atPath: path)
        Self.expectRefused(directory, naming: "cache.sqlite")
        #expect(FileManager.default.contents(atPath: path) == before)
        #expect(try posixMode(path) == 0o666, "not silently re-moded either")
    }

    @Test("a store whose final path component is a symbolic link is refused")
    func symlinkedStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SQLiteStore(path: directory.path("real.sqlite"), accessGroups: try AccessGroups(["g"])).save(Self.item("alice", "rt"))
        try FileManager.default.createSymbolicLink(atPath: directory.path("cache.sqlite"), withDestinationPath: directory.path("real.sqlite"))
        Self.expectRefused(directory, naming: "cache.sqlite")
    }

    @Test("a store, -wal or -shm owned by another user is refused", .enabled(if: canChown, "needs root to give a file away"))
    func otherOwner() throws {
        for suffix in ["", "-wal", "-shm"] {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let path = directory.path("cache.sqlite")
            try Self.open(directory).save(Self.item("alice", "rt"))
            if !FileManager.default.fileExists(atPath: path + suffix) {
                #expect(FileManager.default.createFile(atPath: path + suffix, contents: nil, attributes: [.posixPermissions: 0o600]))
            }
            #expect(chown(path + suffix, 4242, 4242) == 0)
            Self.expectRefused(directory, naming: "cache.sqlite" + suffix)
        }
    }

    @Test("a directory anyone may rename files in is refused; a sticky one is not")
    func sharedDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try Self.open(directory).save(Self.item("alice", "rt"))
        chmod(directory.url.path, 0o777)
        Self.expectRefused(directory, naming: directory.url.lastPathComponent)
        chmod(directory.url.path, 0o1777)
        #expect(try Self.open(directory).allItems().count == 1)
    }

    @Test("the facts a diagnosis shows: owner and mode of each file")
    func facts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let store = try Self.open(directory)
        try store.save(Self.item("alice", "rt"))
        let facts = FileFacts.store(at: path)
        #expect(facts.map(\.path) == [directory.url.path, path, path + "-wal", path + "-shm"])
        #expect(facts[1].owner == geteuid() && facts[1].mode == 0o600 && facts[1].problem == nil)
        #expect(facts.allSatisfy { $0.problem == nil })
    }

    @Test("a key file that is a symbolic link, or another user's, is refused")
    func keyFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let real = KeyFile(path: directory.path("real.key"))
        _ = try real.createKey(for: "g")
        try FileManager.default.createSymbolicLink(atPath: directory.path("link.key"), withDestinationPath: real.path)
        #expect(throws: EncryptionError.self) { _ = try KeyFile(path: directory.path("link.key")).existingKey(for: "g", id: nil) }
        if Self.canChown {
            #expect(chown(real.path, 4242, 4242) == 0)
            #expect(throws: EncryptionError.self) { _ = try real.existingKey(for: "g", id: nil) }
        }
    }
}
