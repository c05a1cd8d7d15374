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
