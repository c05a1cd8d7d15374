import CSQLite

extension SQLiteError {
    /// A SQLite result code by name, as GRDB's `ResultCode`: primary codes (`.busy`, `.corrupt`, …)
    /// and extended ones (whose low byte is their primary code) wrap the same `Int32`.
    public struct ResultCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int32

        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The primary code of an extended one (itself for a primary code).
        public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

        /// SQLite's English name for the code (`sqlite3_errstr`).
        public var description: String { String(cString: sqlite3_errstr(rawValue)) }

        public static let error = ResultCode(rawValue: SQLITE_ERROR)
        public static let `internal` = ResultCode(rawValue: SQLITE_INTERNAL)
        public static let permission = ResultCode(rawValue: SQLITE_PERM)
        public static let abort = ResultCode(rawValue: SQLITE_ABORT)
        public static let busy = ResultCode(rawValue: SQLITE_BUSY)
        public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
        public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
        public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
        public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
        public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
        public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
        public static let notFound = ResultCode(rawValue: SQLITE_NOTFOUND)
        public static let full = ResultCode(rawValue: SQLITE_FULL)
        public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
        public static let `protocol` = ResultCode(rawValue: SQLITE_PROTOCOL)
        public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
        public static let tooBig = ResultCode(rawValue: SQLITE_TOOBIG)
        public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
        public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
        public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
        public static let noLargeFileSupport = ResultCode(rawValue: SQLITE_NOLFS)
        public static let authorization = ResultCode(rawValue: SQLITE_AUTH)
        public static let range = ResultCode(rawValue: SQLITE_RANGE)
        public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)

        /// `SQLITE_IOERR_ACCESS`: the file system refused access to the file.
        public static let ioErrorAccess = ResultCode(rawValue: SQLITE_IOERR | (13 << 8))
    }

    /// The primary result code by name.
    public var resultCode: ResultCode { ResultCode(rawValue: code).primary }

    /// The extended result code by name.
    public var extendedResultCode: ResultCode { ResultCode(rawValue: extendedCode) }
}
