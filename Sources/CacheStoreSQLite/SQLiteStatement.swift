import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A prepared statement owned by one ``SQLiteConnection``; not thread-safe on its own.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears bindings and resets, ready for the next use.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds text by its UTF-8 byte count, so an embedded NUL does not cut the value short.
    func bind(_ value: String, at index: Int32) -> Int32 {
        var value = value
        return value.withUTF8 { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, tc_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text(handle, index, $0, Int32(buffer.count), tc_sqlite_transient())
            }
        }
    }

    func bind(_ value: Int64, at index: Int32) -> Int32 {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ value: Double, at index: Int32) -> Int32 {
        sqlite3_bind_double(handle, index, value)
    }

    /// Binds bytes; an empty `Data` binds a zero-length blob, which SQLite keeps distinct from NULL.
    func bind(_ value: Data?, at index: Int32) -> Int32 {
        guard let value else { return sqlite3_bind_null(handle, index) }
        if value.isEmpty { return sqlite3_bind_zeroblob(handle, index, 0) }
        return value.withUnsafeBytes { buffer in
            sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), tc_sqlite_transient())
        }
    }

    func step() -> Int32 { sqlite3_step(handle) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column's text as bytes, valid until the row changes (empty for SQL NULL).
    func textBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        guard let text = sqlite3_column_text(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// The column's bytes, valid until the row changes; `nil` for SQL NULL.
    func blobBytes(_ column: Int32) -> UnsafeRawBufferPointer? {
        // The pointer first, then its size, as SQLite advises; only a nil pointer needs the type
        // (SQL NULL and a zero-length blob both give one), which saves a call per row.
        if let bytes = sqlite3_column_blob(handle, column) {
            return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column)))
        }
        return isNull(column) ? nil : UnsafeRawBufferPointer(start: nil, count: 0)
    }

    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column's bytes; `nil` for SQL NULL, empty `Data` for a zero-length blob.
    func data(_ column: Int32) -> Data? {
        guard let bytes = blobBytes(column) else { return nil }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return Data() }
        return Data(bytes: base, count: bytes.count)
    }
}
