import CacheStore
import CacheStoreEncryption
import CacheStoreMemory
import CacheStoreRedis
import CacheStoreSQLite
import CacheStoreSecretService
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Opens the backend a ``StoreSpecification`` names.
public enum StoreOpener {
    /// Opens (creating if needed) the store for `accessGroups`.
    ///
    /// SQLite stores are opened with encryption at rest, their keys chosen by ``KeySelection``
    /// from `TOKENCACHE_KEY` (default: the Secret Service when reachable, else a key file beside the
    /// store). Secret Service stores fail on a locked collection unless a display is available for
    /// the keyring's unlock prompt.
    ///
    /// - Parameter notice: receives the one-time sentence a program should show its user when a key
    ///   file is created for a SQLite store (the Secret Service could not keep the key); `nil`
    ///   drops it.
    /// - Throws: the backend's own error (e.g. ``SQLiteStoreError``, ``SecretServiceError``,
    ///   ``EncryptionError``) when it cannot be opened.
    public static func open(
        _ specification: StoreSpecification,
        accessGroups: AccessGroups,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        notice: (@Sendable (String) -> Void)? = nil
    ) throws -> any ItemStore {
        switch specification {
        case .sqlite(let path):
            let selection = try KeySelection.choose(
                for: path, policy: try KeyPolicy(environment: environment), environment: environment, notice: notice)
            return try SQLiteStore(
                path: path, accessGroups: accessGroups,
                options: .init(encryption: .init(keySources: selection.sources)))
        case .memory:
            return MemoryStore(accessGroups: accessGroups)
        case .secretService(let collection):
            return try SecretServiceStore(
                accessGroups: accessGroups,
                options: .init(collection: collection, unlock: unlockPolicy(environment)))
        case .redis(let configuration):
            return try RedisStore(configuration: configuration, accessGroups: accessGroups, environment: environment)
        }
    }

    /// Prompt for unlocking only where a prompt can be shown (a graphical session).
    public static func unlockPolicy(_ environment: [String: String]) -> UnlockPolicy {
        let graphical = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        return graphical ? .prompt : .fail
    }
}
