import CacheStore
import CacheStoreSQLite
import CacheStoreSecretService

/// What a person can change about the choice of store to get past an error, in the library's
/// terms; a program with settings of its own (the CLI's flags) says how.
public enum StoreAdvice: Sendable, Hashable {
    /// Open the store for this access group too.
    case allowAccessGroup(String)
    /// Name another store: the default one has no place, or the file is not a tokencache store.
    case chooseAnotherStore
    /// Without a Secret Service, a SQLite store with its data keys in a key file still works.
    case useSQLiteWithKeyFile

    /// The advice for `error`, when choosing the store differently would get past it.
    public init?(for error: any Error) {
        switch error {
        case CacheStoreError.accessGroupNotAllowed(let group, _):
            self = .allowAccessGroup(group)
        case StoreLocationError.noDefaultLocation, SQLiteStoreError.notATokenCacheStore:
            self = .chooseAnotherStore
        case SecretServiceError.noSessionBus, SecretServiceError.libraryUnavailable:
            self = .useSQLiteWithKeyFile
        default:
            return nil
        }
    }
}
