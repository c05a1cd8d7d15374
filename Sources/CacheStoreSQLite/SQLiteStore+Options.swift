import CSQLite
import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The store's settings and the states it reports.
extension SQLiteStore {
    /// Encryption at rest: where the access groups' data keys come from.
    ///
    /// When the store opens, each of its access groups gets its key: the one the file records for the
    /// group, looked up in each source in turn (a group whose recorded key no source has stays
    /// readable for attributes, and its payloads throw ``EncryptionError/keyUnavailable(accessGroup:keyID:keptIn:searched:storePath:)``);
    /// or, for a group with no key yet, an existing key of a source, else a new one created in the
    /// first source. When a group's key is first recorded, its plain payloads (from schema 1, or
    /// written without encryption) are sealed in the same transaction — a one-time migration — and
    /// the write-ahead log is truncated afterwards so no plain copy lingers in it. From then on, a
    /// plain or unauthenticated row in the group is damaged (see ``CacheStore/DamagedItem``): never
    /// returned, never sealed in.
    public struct Encryption: Sendable {
        /// Where keys are looked up, in order; new keys go to the first.
        public var keySources: [any DataKeySource]

        public init(keySources: [any DataKeySource]) {
            self.keySources = keySources
        }
    }

    /// The state of one access group's data key in an open store.
    public enum KeyStatus: Sendable {
        /// Payloads are stored as given (no encryption, and no key recorded for the group).
        case plain
        /// Payloads are sealed with this key, found in a source of this kind.
        case available(keyID: String, source: KeySourceKind)
        /// Payloads are sealed, but their key cannot be used here; the error says why.
        case unavailable(EncryptionError)
    }

    /// How durable a committed batch is.
    public enum Durability: Sendable {
        /// Survives a crash of the process at any point; a power loss may roll back the most recent
        /// commits, never corrupt the file (`synchronous=NORMAL`). The default.
        case processCrash
        /// Also survives power loss once committed (`synchronous=FULL`; each commit waits for fsync).
        case powerLoss
    }

    /// Settings for opening a store.
    public struct Options: Sendable {
        /// How long a writer waits for another process's transaction before failing with `SQLITE_BUSY`.
        public var busyTimeout: Duration
        public var durability: Durability
        /// The largest `data` an item may have; a batch with a larger one fails as a whole with
        /// ``CacheStoreError/invalidItem(reason:)``.
        public var maximumDataSize: Int
        /// Encryption at rest; `nil` stores payloads as given.
        public var encryption: Encryption?

        public init(
            busyTimeout: Duration = .seconds(30),
            durability: Durability = .processCrash,
            maximumDataSize: Int = StoreLimits.maximumDataSize,
            encryption: Encryption? = nil
        ) {
            self.busyTimeout = busyTimeout
            self.durability = durability
            self.maximumDataSize = maximumDataSize
            self.encryption = encryption
        }
    }
}
