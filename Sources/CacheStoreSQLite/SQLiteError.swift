import CSQLite
import CacheStore

/// A failure reported by SQLite, with the code, SQLite's own message and what the store was doing.
///
/// The message never contains item data: statements bind values as parameters, and SQLite's
/// messages name tables and constraints, not bound values.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
    public let code: Int32
    /// The extended result code (`SQLITE_IOERR_FSYNC`, …).
    public let extendedCode: Int32
    /// `sqlite3_errmsg` at the time of the failure.
    public let message: String
    /// What the store was doing, e.g. `"save batch"`.
    public let operation: String
    /// The database file.
    public let path: String

    public init(code: Int32, extendedCode: Int32, message: String, operation: String, path: String) {
        self.code = code
        self.extendedCode = extendedCode
        self.message = message
        self.operation = operation
        self.path = path
    }

    /// Whether the failure is the database being locked by another connection past the busy timeout.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    public var description: String {
        let name = String(cString: sqlite3_errstr(extendedCode))
        return "SQLite store \(path): \(operation) failed: \(message) (\(name), code \(extendedCode))"
    }
}

extension SQLiteError: CategorizedError {
    public var category: ErrorCategory {
        if extendedResultCode == .ioErrorAccess { return .permission }
        switch resultCode {
        case .corrupt, .notADatabase: return .damaged
        case .permission, .readOnly, .authorization: return .permission
        case .busy, .locked, .ioError, .full, .cannotOpen, .noMemory, .noLargeFileSupport, .protocol, .interrupt:
            return .unavailable
        default: return .internal
        }
    }

    public var remedy: String? {
        switch category {
        case .damaged: "restore the store file from a backup, or move it aside to start an empty store"
        case .permission: "check the permissions of the store file and its directory"
        default: nil
        }
    }
}
