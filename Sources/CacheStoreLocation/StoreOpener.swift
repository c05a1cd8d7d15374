import CacheStore
import CacheStoreSQLite

/// Opens the backend a ``StoreSpecification`` names.
public enum StoreOpener {
    /// Opens (creating if needed) the store for `accessGroups`.
    ///
    /// Throws the backend's own error (e.g. ``SQLiteStoreError``) when it cannot be opened.
    public static func open(_ specification: StoreSpecification, accessGroups: AccessGroups) throws -> any ItemStore {
        switch specification {
        case .sqlite(let path):
            return try SQLiteStore(path: path, accessGroups: accessGroups)
        case .memory:
            return MemoryStore(accessGroups: accessGroups)
        }
    }
}
