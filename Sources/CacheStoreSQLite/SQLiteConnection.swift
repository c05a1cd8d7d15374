import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One SQLite connection with a cache of prepared statements. Not thread-safe: its owner serialises use.
// @unchecked Sendable: a connection is only ever used under its store's mutex (including by the
// `applyPlanned` reader, which runs inside that lock); the type is internal to this module.
final class SQLiteConnection: @unchecked Sendable {
    let path: String
    private let handle: OpaquePointer
    private let busyTimeoutMilliseconds: Int32
    private var statements: [StatementKey: SQLiteStatement] = [:]

    /// Why this connection is read-only, when it is (see ``ReadOnlyAccess``).
    let readOnly: ReadOnlyAccess?

    /// Opens an existing database file read-write (the file must exist; see ``SecureFile``), or
    /// read-only when `readOnly` says why it must be.
    init(path: String, busyTimeoutMilliseconds: Int32, readOnly: ReadOnlyAccess? = nil) throws(SQLiteStoreError) {
        self.path = path
        self.readOnly = readOnly
        var db: OpaquePointer?
        let flags = (readOnly == nil ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY | SQLITE_OPEN_URI) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(readOnly?.uri(for: path) ?? path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw .sqlite(SQLiteError(code: code & 0xFF, extendedCode: code, message: message, operation: "open", path: path))
        }
        // The SQL functions the store's queries use (`tokencache_plain`, see shim.h).
        let registered = tc_register_functions(db)
        guard registered == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(db))
            sqlite3_close_v2(db)
            throw .sqlite(SQLiteError(code: registered & 0xFF, extendedCode: registered, message: message, operation: "open", path: path))
        }
        self.handle = db
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ code: Int32, _ operation: String) -> SQLiteStoreError {
        if let readOnly {
            // A write on a read-only connection; or a log with commits whose index cannot be made.
            if code & 0xFF == SQLITE_READONLY { return .readOnly(path: path, operation: operation, readOnly) }
            if code & 0xFF == SQLITE_CANTOPEN { return .readOnly(path: path, operation: SQLiteStoreError.readWithoutIndex, readOnly) }
        }
        return .sqlite(SQLiteError(
            code: code & 0xFF,
            extendedCode: sqlite3_extended_errcode(handle),
            message: String(cString: sqlite3_errmsg(handle)),
            operation: operation,
            path: path
        ))
    }

    /// Runs SQL that returns no rows (several statements allowed).
    func execute(_ sql: String, _ operation: String) throws(SQLiteStoreError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, operation) }
    }

    /// A cached prepared statement for `sql`, reset and ready to bind.
    func statement(_ sql: String) throws(SQLiteStoreError) -> SQLiteStatement {
        if let cached = statements[StatementKey(sql: sql)] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else { throw error(code, "prepare") }
        let statement = SQLiteStatement(handle: raw, sql: sql)
        statements[StatementKey(sql: sql)] = statement
        return statement
    }

    /// A statement's SQL as the cache's key, hashed by its length and its last bytes rather than
    /// SipHash over all of it (a save looks up a dozen statements of 60 to 200 bytes); compared whole.
    private struct StatementKey: Hashable {
        let sql: String

        func hash(into hasher: inout Hasher) {
            var sql = sql
            let count = sql.utf8.count
            hasher.combine(count)
            sql.withUTF8 { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                if count >= 16 {
                    hasher.combine(raw.loadUnaligned(fromByteOffset: count / 2, as: UInt64.self))
                    hasher.combine(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
                } else {
                    hasher.combine(bytes: raw)
                }
            }
        }
    }

    /// Reads a one-integer pragma or query.
    func integer(_ sql: String, _ operation: String) throws(SQLiteStoreError) -> Int64 {
        let statement = try statement(sql)
        defer { statement.reset() }
        let code = statement.step()
        guard code == SQLITE_ROW else { throw error(code, operation) }
        return statement.int64(0)
    }

    /// SQLite's mapping of the WAL index's first region, or `nil` (see ``WALIndexWatcher``).
    var walIndexRegion: UnsafeRawPointer? {
        tc_wal_index(handle).map { UnsafeRawPointer($0) }
    }

    /// The descriptor SQLite reads the database (or, with `journal`, its write-ahead log) through,
    /// when that file is open; for `fstat(2)` only, never to be closed.
    func descriptor(journal: Bool) -> Int32? {
        let fd = tc_sqlite_descriptor(handle, journal ? 1 : 0)
        return fd >= 0 ? fd : nil
    }

    /// Whether no transaction is open on this connection.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Ends a read transaction begun with `BEGIN`; it wrote nothing, so its outcome does not matter.
    func endReadTransaction() {
        sqlite3_exec(handle, "COMMIT", nil, nil, nil)
        if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// Runs `body` in one read transaction, so that its statements see one state of the file (or in
    /// the transaction already open).
    func readTransaction<T, Failure: Error>(_ operation: String, _ body: () throws(Failure) -> T) throws -> T {
        guard isAutocommit else { return try body() }
        try execute("BEGIN", operation)
        defer { endReadTransaction() }
        return try body()
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: committed if it returns, rolled back if it throws.
    ///
    /// IMMEDIATE takes the write lock up front, so a writer waits in the busy handler instead of
    /// failing with `SQLITE_BUSY` when it upgrades a read.
    func writeTransaction<T, Failure: Error>(
        _ operation: String, _ body: () throws(Failure) -> T
    ) throws -> T {
        // Read-only, a deferred transaction: what it reads works, and its first write fails as `readOnly`.
        try execute(readOnly == nil ? "BEGIN IMMEDIATE" : "BEGIN", operation)
        do {
            let result = try body()
            try execute("COMMIT", operation)
            return result
        } catch {
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }
}

extension SQLiteConnection {
    /// Reads a one-text-column pragma or query.
    func string(_ sql: String, _ operation: String) throws(SQLiteStoreError) -> String {
        let statement = try statement(sql)
        defer { statement.reset() }
        let code = statement.step()
        guard code == SQLITE_ROW else { throw error(code, operation) }
        return statement.string(0)
    }
}

extension SQLiteConnection {
    /// Copies the committed pages of the write-ahead log into the database file, as far as no
    /// reader of another connection still needs them, never waiting (`PASSIVE`); with `truncate`,
    /// then empties the log file if no reader is using it at this instant (`TRUNCATE` without the
    /// busy handler). Returns whether every committed page was copied.
    @discardableResult
    func checkpoint(truncate: Bool) throws(SQLiteStoreError) -> Bool {
        var log: Int32 = 0
        var copied: Int32 = 0
        var code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        guard code == SQLITE_OK || code == SQLITE_BUSY else { throw error(code, "checkpoint the write-ahead log") }
        guard truncate, code == SQLITE_OK, log == copied else { return code == SQLITE_OK && log == copied }
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, &log, &copied)
        guard code == SQLITE_OK || code == SQLITE_BUSY else { throw error(code, "truncate the write-ahead log") }
        return true
    }
}
