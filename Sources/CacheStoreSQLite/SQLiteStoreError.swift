#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CacheStore
import PrivateFiles

/// Why a SQLite store could not be opened or used.
public enum SQLiteStoreError: Error, Sendable, CustomStringConvertible {
    /// SQLite reported an error.
    case sqlite(SQLiteError)
    /// Creating the store's directory or file failed with `errno`.
    case cannotCreate(path: String, errno: Int32)
    /// The file is a SQLite database of another program.
    case notATokenCacheStore(path: String)
    /// The file was written by a newer tokencache whose schema this version does not know.
    case newerSchema(path: String, found: Int32, supported: Int32)
    /// A file or directory of the store could have been planted or altered by someone else (see
    /// ``FileFacts``): it is not the user's, is writable by others, or is a symbolic link. Nothing
    /// was read from it or written to it.
    case unsafeFile(path: String, problem: String, fix: String)
    /// A file of the open store was removed or replaced by another program while this process
    /// held it open: a write here would land in a file nobody else reads. Nothing was written.
    case replacedWhileOpen(path: String, problem: String)
    /// The store's write-ahead log was cut short by another program while this process held it
    /// open: commits recorded in it are gone. Nothing was written.
    case truncatedWhileOpen(path: String, size: Int64, expected: Int64)
    /// The store was opened read-only (see ``ReadOnlyAccess``) and `operation` needs to write, or
    /// its `-wal` holds commits that cannot be read without a `-shm` index it cannot create.
    case readOnly(path: String, operation: String, ReadOnlyAccess)

    public var description: String {
        switch self {
        case .sqlite(let error):
            return error.description
        case .cannotCreate(let path, let code):
            return "cannot create \(path): \(systemErrorText(code))"
        case .notATokenCacheStore(let path):
            return "\(path) is a SQLite database of another program, not a tokencache store (the file was left unchanged)"
        case .unsafeFile(let path, let problem, let fix):
            return "refusing to use \(path): \(problem), so someone else could have planted or altered it; \(fix)"
        case .replacedWhileOpen(let path, let problem):
            return "\(path) \(problem) while this process had the store open; the change was not written"
        case .truncatedWhileOpen(let path, let size, let expected):
            return "\(path) was cut to \(size) bytes by another program while this process had the store open "
                + "(its commits need \(expected)); the change was not written"
        case .readOnly(let path, let operation, let access):
            return "cannot \(operation) in \(path): \(access); " + (Self.readOnly(path: path, operation: operation, access).remedy ?? "")
        case .newerSchema(let path, let found, let supported):
            return "\(path) uses store schema \(found), but this tokencache understands up to \(supported); "
                + "upgrade tokencache to open it (the file was left unchanged)"
        }
    }
}

extension SQLiteStoreError {
    /// The operation of a read-only store that needs its `-shm` index and cannot make one.
    static let readWithoutIndex = "read the store without its -shm index (SQLite makes one beside the file to read its write-ahead log)"
}

extension SQLiteStoreError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .sqlite(let error): error.category
        case .cannotCreate(_, let code): code == EACCES || code == EPERM || code == EROFS ? .permission : .unavailable
        case .notATokenCacheStore: .damaged
        case .unsafeFile: .permission
        case .replacedWhileOpen: .unavailable
        case .truncatedWhileOpen: .damaged
        case .readOnly: .permission
        // Not damaged, but unreadable here all the same; a newer tokencache reads it.
        case .newerSchema: .damaged
        }
    }

    public var remedy: String? {
        switch self {
        case .sqlite(let error): error.remedy
        case .cannotCreate: "choose a path in a writable directory"
        case .notATokenCacheStore: "choose another path for the store"
        case .unsafeFile(_, _, let fix): fix
        case .replacedWhileOpen:
            "close the store and open it again (restart the program) to use the files now at its path, "
                + "and find out which program replaced them; then make the change again"
        case .truncatedWhileOpen:
            "stop every program using the store, run `tokencache doctor`, and find out which program cut the file; "
                + "commits since the last checkpoint are lost"
        case .newerSchema: "upgrade tokencache"
        case .readOnly(_, let operation, let access):
            operation == Self.readWithoutIndex
                ? "copy the store (with its -wal file, if any) to writable storage and open the copy, or open it once where it is writable"
                : access.remedy
        }
    }
}
