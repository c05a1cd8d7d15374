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
        case .newerSchema(let path, let found, let supported):
            return "\(path) uses store schema \(found), but this tokencache understands up to \(supported); "
                + "upgrade tokencache to open it (the file was left unchanged)"
        }
    }
}

extension SQLiteStoreError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .sqlite(let error): error.category
        case .cannotCreate(_, let code): code == EACCES || code == EPERM || code == EROFS ? .permission : .unavailable
        case .notATokenCacheStore: .damaged
        case .unsafeFile: .permission
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
        case .newerSchema: "upgrade tokencache"
        }
    }
}
