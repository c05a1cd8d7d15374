#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CacheStore

extension SQLiteStoreError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .sqlite(let error): error.category
        case .cannotCreate(_, let code): code == EACCES || code == EPERM || code == EROFS ? .permission : .unavailable
        case .notATokenCacheStore: .damaged
        case .unsafeFile: .permission
        case .replacedWhileOpen: .unavailable
        case .truncatedWhileOpen: .damaged
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
        }
    }
}
