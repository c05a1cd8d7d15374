import CSQLite
import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The embedded default backend: one SQLite file in WAL mode, shared by any number of processes.
///
/// - Every batch is one `BEGIN IMMEDIATE` transaction: other processes see all of it or none of it,
///   and a process killed in the middle leaves the previous state.
/// - Concurrent writers wait for each other (busy timeout) instead of failing; readers never block
///   writers (WAL). No lock files are created.
/// - The file is created 0600 in a 0700 directory.
/// - ``changeStamp()`` uses `PRAGMA data_version`, which changes when another connection commits.
/// - With ``Options/encryption``, every payload is sealed with AES-256-GCM under its access group's
///   data key (see ``Encryption``); attributes stay readable. Without it, payloads are stored as
///   given, and groups whose items another opener sealed can be neither read nor written.
public final class SQLiteStore: ItemStore {
    public let accessGroups: AccessGroups
    /// The database file.
    public let path: String

    struct State {
        let connection: SQLiteConnection
        var localCommits: UInt64 = 0
        /// Watches the WAL index so that an unchanged store is recognized without a query.
        var watcher: WALIndexWatcher?
        /// The last stamp computed, and the WAL index header it was computed under.
        var lastStamp: (header: WALIndexWatcher.Snapshot, stamp: ChangeStamp)?
        /// Damaged rows the most recent read of the whole store skipped.
        var damagedInLastFullRead = 0
        /// Damaged rows the most recent whole read that left items out skipped (see
        /// `SQLiteStore+SplitReading.swift`): a read of every left-out item adds its own to it.
        var damagedInLastSplitRead = 0
    }

    let state: StateLock<State>
    let groupPlaceholders: String
    let maximumDataSize: Int
    let encrypted: Bool
    /// The data key of each group whose key is available (fixed at open).
    let keys: [String: DataKey]
    /// The key file each group's key came from, checked before each write that seals with it.
    let keyFiles: [String: String]
    /// Why each group whose items are sealed with an unavailable key cannot be read.
    let unavailableKeys: [String: EncryptionError]

    /// Each access group's key status, fixed when the store opened.
    public let keyStatus: [String: KeyStatus]

    /// Why the store was opened read-only (its file system is mounted read-only, or its file or
    /// directory is not writable by this user), or `nil` when it can be written. A read-only store
    /// reads as any other; every write throws ``SQLiteStoreError/readOnly(path:operation:_:)``.
    public let readOnly: ReadOnlyAccess?

    /// Opens the store at `path`, creating the file (0600), its missing directories (0700) and the
    /// schema if needed, and migrating an older schema.
    ///
    /// - Throws: ``SQLiteStoreError`` when the file cannot be created, opened or migrated.
    public init(path: String, accessGroups: AccessGroups, options: Options = Options()) throws {
        self.path = path
        self.accessGroups = accessGroups
        self.maximumDataSize = options.maximumDataSize
        self.groupPlaceholders = Array(repeating: "?", count: accessGroups.all.count).joined(separator: ", ")
        let timeout = options.busyTimeout.components
        let milliseconds = Int32(clamping: timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000)
        // Every step below may meet other processes creating, recovering or converting the same
        // file; each waits for them up to the busy timeout (see docs/architecture.md, "Opening").
        let deadline = OpenDeadline(timeout: options.busyTimeout)
        try SecureFile.prepareDirectory(for: path)
        try FileFacts.require([FileFacts.directory(holding: path)])
        try StoreCreation.createIfMissing(path: path, busyTimeoutMilliseconds: milliseconds)
        // Looked at before SQLite opens the files by name, and again on SQLite's own descriptors
        // once it has (see FileFacts): a file planted or swapped in between is refused before
        // anything read from it is used or anything is written.
        try FileFacts.require(FileFacts.store(at: path))
        // An existing store this process cannot write is opened for reading (see ReadOnlyAccess).
        let readOnly = ReadOnlyAccess.detect(path: path)
        self.readOnly = readOnly
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: milliseconds, readOnly: readOnly)
        let inspected = try deadline.retrying { try StoreSchema.inspect(connection) }
        try FileFacts.require(connection.openedFileFacts())
        // A store this version created is in WAL mode already (asking costs a header read). Files of
        // earlier versions, or an empty file someone else made, are converted here.
        try deadline.retrying {
            if readOnly != nil { return }  // as it is; a store in rollback mode is read so too
            if try connection.string("PRAGMA journal_mode", "read journal mode").lowercased() == "wal" { return }
            let mode = try connection.string("PRAGMA journal_mode = WAL", "enable WAL")
            guard mode.lowercased() == "wal" else { throw StoreSchema.walRefused(mode, path: path) }
        }
        let synchronous = options.durability == .powerLoss ? "FULL" : "NORMAL"
        try connection.execute("PRAGMA synchronous = \(synchronous)", "set durability")
        // Freed pages and cells are zeroed, so a deleted or re-sealed token leaves no plain copy.
        try connection.execute("PRAGMA secure_delete = ON", "enable secure delete")
        if let readOnly {
            // Read as it is; a schema this version would migrate cannot be, here.
            if inspected.isNew || inspected.version < StoreSchema.latestVersion {
                throw SQLiteStoreError.readOnly(path: path, operation: "bring the store to schema \(StoreSchema.latestVersion)", readOnly)
            }
        } else {
            try deadline.retrying { try StoreSchema.migrate(connection) }
        }
        if let encryption = options.encryption {
            let prepared = try deadline.retrying { try Self.prepareKeys(encryption, groups: accessGroups, connection: connection) }
            // Read-only, a group without a recorded key stays plain: its payloads are read as stored.
            self.encrypted = !prepared.status.values.contains { if case .plain = $0 { true } else { false } }
            self.keys = prepared.keys
            self.unavailableKeys = prepared.unavailable
            self.keyStatus = prepared.status
            self.keyFiles = prepared.keyFiles
        } else {
            self.encrypted = false
            self.keys = [:]
            self.keyFiles = [:]
            self.unavailableKeys = [:]
            var status: [String: KeyStatus] = [:]
            for group in accessGroups.all {
                let recorded = try deadline.retrying { try Self.recordedKey(group, connection: connection) } != nil
                status[group] = recorded ? .unavailable(.storeOpenedWithoutKey(accessGroup: group, storePath: path)) : .plain
            }
            self.keyStatus = status
        }
        // The migration above ran a transaction, so the WAL index exists by now.
        // Read-only, the index may be SQLite's private copy, which the header does not follow.
        let watcher = readOnly == nil ? WALIndexWatcher(connection: connection) : nil
        self.state = StateLock(State(connection: connection, watcher: watcher))
    }

    /// `PRAGMA data_version` with this connection's commit count; when the WAL index header shows
    /// no commit since the last call, the last stamp is returned without a query (about 20 ns
    /// instead of 2 µs), which keeps the engine's per-lookup freshness check off the hot path.
    public func changeStamp() throws -> ChangeStamp {
        try state.withLock { state throws(SQLiteStoreError) in
            let header = state.watcher?.snapshot()
            if let header, let last = state.lastStamp, last.header == header {
                return last.stamp
            }
            let version = try state.connection.integer("PRAGMA data_version", "read data version")
            let stamp = ChangeStamp(UInt64(bitPattern: version), state.localCommits)
            if let header { state.lastStamp = (header, stamp) }
            return stamp
        }
    }

    /// Whether commits are noticed through the WAL index header, without a query per change check.
    var watchesWALIndex: Bool { state.withLock { $0.watcher != nil } }
}
