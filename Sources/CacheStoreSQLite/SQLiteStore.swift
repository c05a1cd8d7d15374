import CSQLite
import CacheStore
import Foundation
import Synchronization

/// The embedded default backend: one SQLite file in WAL mode, shared by any number of processes.
///
/// - Every batch is one `BEGIN IMMEDIATE` transaction: other processes see all of it or none of it,
///   and a process killed in the middle leaves the previous state.
/// - Concurrent writers wait for each other (busy timeout) instead of failing; readers never block
///   writers (WAL). No lock files are created.
/// - The file is created 0600 in a 0700 directory.
/// - ``changeStamp()`` uses `PRAGMA data_version`, which changes when another connection commits.
public final class SQLiteStore: ItemStore {
    /// How durable a committed batch is.
    public enum Durability: Sendable {
        /// Survives a crash of the process at any point; a power loss may roll back the most recent
        /// commits, never corrupt the file (`synchronous=NORMAL`). The default.
        case processCrash
        /// Also survives power loss once committed (`synchronous=FULL`; each commit waits for fsync).
        case powerLoss
    }

    /// Settings for opening a store.
    public struct Options: Sendable {
        /// How long a writer waits for another process's transaction before failing with `SQLITE_BUSY`.
        public var busyTimeout: Duration
        public var durability: Durability
        /// The largest `data` an item may have; a batch with a larger one fails as a whole with
        /// ``CacheStoreError/invalidItem(reason:)``.
        public var maximumDataSize: Int

        public init(
            busyTimeout: Duration = .seconds(30),
            durability: Durability = .processCrash,
            maximumDataSize: Int = StoreLimits.maximumDataSize
        ) {
            self.busyTimeout = busyTimeout
            self.durability = durability
            self.maximumDataSize = maximumDataSize
        }
    }

    public let accessGroups: AccessGroups
    /// The database file.
    public let path: String

    private struct State {
        let connection: SQLiteConnection
        var localCommits: UInt64 = 0
    }

    private let state: Mutex<State>
    private let groupPlaceholders: String
    private let maximumDataSize: Int

    /// Opens the store at `path`, creating the file (0600), its missing directories (0700) and the
    /// schema if needed, and migrating an older schema.
    ///
    /// - Throws: ``SQLiteStoreError`` when the file cannot be created, opened or migrated.
    public init(path: String, accessGroups: AccessGroups, options: Options = Options()) throws {
        self.path = path
        self.accessGroups = accessGroups
        self.maximumDataSize = options.maximumDataSize
        self.groupPlaceholders = Array(repeating: "?", count: accessGroups.all.count).joined(separator: ", ")
        try SecureFile.prepare(path: path)
        let timeout = options.busyTimeout.components
        let milliseconds = timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: Int32(clamping: milliseconds))
        try StoreSchema.inspect(connection)
        // journal_mode is persistent in the file; asking again on an existing WAL store is a no-op.
        let mode = try connection.string("PRAGMA journal_mode = WAL", "enable WAL")
        guard mode.lowercased() == "wal" else {
            throw SQLiteStoreError.sqlite(SQLiteError(
                code: SQLITE_CANTOPEN, extendedCode: SQLITE_CANTOPEN,
                message: "the file system refused write-ahead logging (journal mode stayed \(mode))",
                operation: "enable WAL", path: path))
        }
        let synchronous = options.durability == .powerLoss ? "FULL" : "NORMAL"
        try connection.execute("PRAGMA synchronous = \(synchronous)", "set durability")
        try StoreSchema.migrate(connection)
        self.state = Mutex(State(connection: connection))
    }

    public func items(matching query: ItemQuery) throws -> [StoreItem] {
        try accessGroups.check(query)
        let (whereClause, bind) = condition(for: query)
        let sql = "SELECT access_group, account, service, type, generic, data, created, modified FROM items WHERE "
            + whereClause + " ORDER BY rowid"
        return try state.withLock { state throws(SQLiteStoreError) in
            try Self.items(sql, bind, on: state.connection)
        }
    }

    private static func items(
        _ sql: String, _ bind: (SQLiteStatement) -> Void, on connection: SQLiteConnection
    ) throws(SQLiteStoreError) -> [StoreItem] {
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        bind(statement)
        var items: [StoreItem] = []
        while true {
            let code = statement.step()
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw connection.error(code, "query items") }
            items.append(Self.item(from: statement))
        }
        return items
    }

    public func apply(_ batch: [StoreOperation]) throws -> BatchResult {
        try apply(batch, expecting: nil)!
    }

    public func apply(_ batch: [StoreOperation], ifUnchangedSince stamp: ChangeStamp) throws -> BatchResult? {
        try apply(batch, expecting: stamp)
    }

    public func applyPlanned(
        _ plan: (_ stamp: ChangeStamp, _ allItems: () throws -> [StoreItem]) throws -> [StoreOperation]
    ) throws -> BatchResult {
        try apply(expecting: nil) { stamp, connection in
            let (whereClause, bind) = condition(for: ItemQuery())
            let sql = "SELECT access_group, account, service, type, generic, data, created, modified FROM items WHERE "
                + whereClause + " ORDER BY rowid"
            let batch = try plan(stamp) { try Self.items(sql, bind, on: connection) }
            try accessGroups.check(batch)
            return batch
        }!
    }

    private func apply(_ batch: [StoreOperation], expecting stamp: ChangeStamp?) throws -> BatchResult? {
        try accessGroups.check(batch)
        guard !batch.isEmpty else { return BatchResult() }
        return try apply(expecting: stamp) { _, _ in batch }
    }

    /// Runs `plan` and the batch it returns in one write transaction: under the write lock, with the
    /// stamp of the content the transaction sees. With `expecting`, a different stamp writes nothing
    /// and returns nil.
    private func apply(
        expecting stamp: ChangeStamp?,
        _ plan: (ChangeStamp, SQLiteConnection) throws -> [StoreOperation]
    ) throws -> BatchResult? {
        let now = Date().timeIntervalSince1970
        return try state.withLock { state throws -> BatchResult? in
            let connection = state.connection
            var dataVersion: Int64 = 0
            var wroteNothing = false
            let localCommits = state.localCommits
            let applied = try connection.writeTransaction("save batch") { () throws -> BatchResult? in
                // Under the write lock no other connection can commit: this is the version the
                // batch applies to, and data_version does not move for this connection's own commit.
                dataVersion = try connection.integer("PRAGMA data_version", "read data version")
                let current = ChangeStamp(UInt64(bitPattern: dataVersion), localCommits)
                if let stamp, current != stamp {
                    return nil  // someone committed since: nothing is written
                }
                let batch = try plan(current, connection)
                var result = BatchResult()
                if batch.isEmpty {
                    wroteNothing = true
                    return result
                }
                for operation in batch {
                    switch operation {
                    case .save(let item):
                        // Checked inside the transaction: a rejected item rolls back what the batch already did.
                        try StoreLimits.check(item, maximumDataSize: maximumDataSize)
                        if try update(item, at: now, on: connection) {
                            result.replaced += 1
                        } else {
                            try insert(item, at: now, on: connection)
                            result.added += 1
                        }
                    case .delete(let query):
                        result.deleted += try delete(query, on: connection)
                    }
                }
                return result
            }
            guard var result = applied else { return nil }
            if wroteNothing { return result }
            let version = UInt64(bitPattern: dataVersion)
            result.commit = CommitStamps(
                base: ChangeStamp(version, state.localCommits),
                result: ChangeStamp(version, state.localCommits &+ 1))
            state.localCommits &+= 1
            return result
        }
    }

    public func changeStamp() throws -> ChangeStamp {
        try state.withLock { state throws(SQLiteStoreError) in
            let version = try state.connection.integer("PRAGMA data_version", "read data version")
            return ChangeStamp(UInt64(bitPattern: version), state.localCommits)
        }
    }

    /// Runs SQLite's `PRAGMA integrity_check`; returns its findings, empty when the file is sound.
    public func integrityCheck() throws -> [String] {
        try state.withLock { state throws(SQLiteStoreError) in
            let statement = try state.connection.statement("PRAGMA integrity_check")
            defer { statement.reset() }
            var findings: [String] = []
            while true {
                let code = statement.step()
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else { throw state.connection.error(code, "check integrity") }
                let line = statement.string(0)
                if line != "ok" { findings.append(line) }
            }
            return findings
        }
    }

    /// The schema version recorded in the file (`PRAGMA user_version`).
    public func schemaVersion() throws -> Int {
        try state.withLock { state throws(SQLiteStoreError) in
            Int(try state.connection.integer("PRAGMA user_version", "read schema version"))
        }
    }

    // MARK: - Statements

    private func update(_ item: StoreItem, at now: Double, on connection: SQLiteConnection) throws(SQLiteStoreError) -> Bool {
        let statement = try connection.statement(
            "UPDATE items SET generic = ?, data = ?, modified = ? "
                + "WHERE access_group = ? AND account = ? AND service = ? AND type = ?")
        defer { statement.reset() }
        _ = statement.bind(item.generic, at: 1)
        _ = statement.bind(item.data, at: 2)
        _ = statement.bind(now, at: 3)
        _ = statement.bind(item.accessGroup, at: 4)
        _ = statement.bind(item.account, at: 5)
        _ = statement.bind(item.service, at: 6)
        _ = statement.bind(Self.typeColumn(item.type), at: 7)
        let code = statement.step()
        guard code == SQLITE_DONE else { throw connection.error(code, "save item") }
        return connection.changes > 0
    }

    private func insert(_ item: StoreItem, at now: Double, on connection: SQLiteConnection) throws(SQLiteStoreError) {
        let statement = try connection.statement(
            "INSERT INTO items (access_group, account, service, type, generic, data, created, modified) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        defer { statement.reset() }
        _ = statement.bind(item.accessGroup, at: 1)
        _ = statement.bind(item.account, at: 2)
        _ = statement.bind(item.service, at: 3)
        _ = statement.bind(Self.typeColumn(item.type), at: 4)
        _ = statement.bind(item.generic, at: 5)
        _ = statement.bind(item.data, at: 6)
        _ = statement.bind(now, at: 7)
        _ = statement.bind(now, at: 8)
        let code = statement.step()
        guard code == SQLITE_DONE else { throw connection.error(code, "add item") }
    }

    private func delete(_ query: ItemQuery, on connection: SQLiteConnection) throws(SQLiteStoreError) -> Int {
        let (whereClause, bind) = condition(for: query)
        let statement = try connection.statement("DELETE FROM items WHERE " + whereClause)
        defer { statement.reset() }
        bind(statement)
        let code = statement.step()
        guard code == SQLITE_DONE else { throw connection.error(code, "delete items") }
        return connection.changes
    }

    /// The WHERE clause for a query and a closure that binds its parameters.
    ///
    /// The clause text depends only on which attributes are named, so each shape is prepared once.
    private func condition(for query: ItemQuery) -> (String, (SQLiteStatement) -> Void) {
        var clauses: [String] = []
        var binders: [(SQLiteStatement, Int32) -> Void] = []
        if let group = query.accessGroup {
            clauses.append("access_group = ?")
            binders.append { _ = $0.bind(group, at: $1) }
        } else {
            clauses.append("access_group IN (\(groupPlaceholders))")
            for group in accessGroups.all { binders.append { _ = $0.bind(group, at: $1) } }
        }
        if let account = query.account {
            clauses.append("account = ?")
            binders.append { _ = $0.bind(account, at: $1) }
        }
        if let service = query.service {
            clauses.append("service = ?")
            binders.append { _ = $0.bind(service, at: $1) }
        }
        if let generic = query.generic {
            clauses.append("generic = ?")
            binders.append { _ = $0.bind(generic, at: $1) }
        }
        switch query.type {
        case nil: break
        case .code(let code):
            clauses.append("type = ?")
            binders.append { _ = $0.bind(Int64(code), at: $1) }
        case .absent:
            clauses.append("type = \(StoreSchema.absentType)")
        }
        let bind: (SQLiteStatement) -> Void = { statement in
            for (offset, binder) in binders.enumerated() { binder(statement, Int32(offset + 1)) }
        }
        return (clauses.joined(separator: " AND "), bind)
    }

    private static func typeColumn(_ type: UInt32?) -> Int64 {
        type.map(Int64.init) ?? StoreSchema.absentType
    }

    private static func item(from row: SQLiteStatement) -> StoreItem {
        let type = row.int64(3)
        return StoreItem(
            accessGroup: row.string(0),
            account: row.string(1),
            service: row.string(2),
            generic: row.data(4),
            type: type == StoreSchema.absentType ? nil : UInt32(truncatingIfNeeded: type),
            data: row.data(5) ?? Data(),
            created: Date(timeIntervalSince1970: row.double(6)),
            modified: Date(timeIntervalSince1970: row.double(7))
        )
    }
}
