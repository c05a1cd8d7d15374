import CSQLite
import CacheStore
@testable import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

/// The `items_group_generic_type` index earlier versions made: new files go without it, files that
/// have it lose it at the next read-write open, and the one query by `generic` still walks an index.
@Suite("SQLite store: retired indexes")
struct RetiredIndexTests {
    static let legacyGeneric = Data("legacy".utf8)

    static func items() -> [StoreItem] {
        [
            StoreItem(accessGroup: "g", account: "a", service: "s1", generic: legacyGeneric, type: nil, data: Data("1".utf8)),
            StoreItem(accessGroup: "g", account: "b", service: "s2", generic: legacyGeneric, type: nil, data: Data("2".utf8)),
            StoreItem(accessGroup: "g", account: "a", service: "s3", generic: legacyGeneric, type: 2001, data: Data("3".utf8)),
            StoreItem(accessGroup: "g", account: "c", service: "s4", generic: Data("other".utf8), type: nil, data: Data("4".utf8)),
        ]
    }

    static func retiredIndexCount(_ path: String) throws -> Int64 {
        try rawInteger(path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'items_group_generic_type'")
    }

    /// What SQLite's planner says about the store's own SELECT for `query`, one line per step.
    static func plan(_ store: SQLiteStore, _ query: ItemQuery) throws -> String {
        let (sql, bind) = store.select(query)
        return try store.state.withLock { state in
            let statement = try state.connection.statement("EXPLAIN QUERY PLAN " + sql)
            defer { statement.reset() }
            bind(statement)
            var lines: [String] = []
            while statement.step() == SQLITE_ROW { lines.append(statement.string(3)) }
            return lines.joined(separator: "\n")
        }
    }

    @Test("a new store has no index on generic; the legacy entries' query walks the type index and finds only them")
    func newStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        try store.save(Self.items())
        #expect(try Self.retiredIndexCount(path) == 0)
        let query = ItemQuery(generic: Self.legacyGeneric, type: .absent)
        #expect(try Set(store.items(matching: query).map(\.service)) == ["s1", "s2"])
        let plan = try Self.plan(store, query)
        #expect(plan.contains("USING INDEX items_group_type"), "\(plan)")
        #expect(!plan.contains("SCAN items"), "\(plan)")
    }

    @Test("a file with the index (as older versions make it) loses it at the next read-write open, keeping its items")
    func olderFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"])).save(Self.items())
        try rawSQL(path, "CREATE INDEX items_group_generic_type ON items (access_group, generic, type)")
        #expect(try Self.retiredIndexCount(path) == 1)

        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        #expect(try Self.retiredIndexCount(path) == 0)
        #expect(try store.allItems().count == 4)
        #expect(try store.schemaVersion() == 3, "not a schema version: older versions keep opening the file")
        #expect(try store.integrityCheck().isEmpty)
        // The drop frees the index's pages without zeroing them; everything after zeroes again.
        #expect(try store.state.withLock { try $0.connection.integer("PRAGMA secure_delete", "read secure delete") } == 1)
        // A process of an older version making it again meanwhile: the next open drops it again.
        try rawSQL(path, "CREATE INDEX items_group_generic_type ON items (access_group, generic, type)")
        _ = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        #expect(try Self.retiredIndexCount(path) == 0)
        #expect(try Set(store.items(matching: ItemQuery(generic: Self.legacyGeneric, type: .absent)).map(\.service)) == ["s1", "s2"])
    }
}
