import CSQLite
import CacheStore
import CacheStoreEncryption
import Foundation
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
    /// Encryption at rest: where the access groups' data keys come from.
    ///
    /// When the store opens, each of its access groups gets its key: the one the file records for the
    /// group, looked up in each source in turn (a group whose recorded key no source has stays
    /// readable for attributes, and its payloads throw ``EncryptionError/keyUnavailable(accessGroup:keyID:keptIn:searched:storePath:)``);
    /// or, for a group with no key yet, an existing key of a source, else a new one created in the
    /// first source. Plain payloads of the group (from schema 1, or written without encryption) are
    /// sealed in the same transaction, and the write-ahead log is truncated afterwards so no plain
    /// copy lingers in it.
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

    public let accessGroups: AccessGroups
    /// The database file.
    public let path: String

    private struct State {
        let connection: SQLiteConnection
        var localCommits: UInt64 = 0
        /// Watches the WAL index so that an unchanged store is recognized without a query.
        var watcher: WALIndexWatcher?
        /// The last stamp computed, and the WAL index header it was computed under.
        var lastStamp: (header: WALIndexWatcher.Snapshot, stamp: ChangeStamp)?
        /// Damaged rows the most recent read of the whole store skipped.
        var damagedInLastFullRead = 0
    }

    private let state: StateLock<State>
    private let groupPlaceholders: String
    private let maximumDataSize: Int
    private let encrypted: Bool
    /// The data key of each group whose key is available (fixed at open).
    private let keys: [String: DataKey]
    /// Why each group whose items are sealed with an unavailable key cannot be read.
    private let unavailableKeys: [String: EncryptionError]

    /// Each access group's key status, fixed when the store opened.
    public let keyStatus: [String: KeyStatus]

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
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: milliseconds)
        _ = try deadline.retrying { try StoreSchema.inspect(connection) }
        try FileFacts.require(connection.openedFileFacts())
        // A store this version created is in WAL mode already (asking costs a header read). Files of
        // earlier versions, or an empty file someone else made, are converted here.
        try deadline.retrying {
            if try connection.string("PRAGMA journal_mode", "read journal mode").lowercased() == "wal" { return }
            let mode = try connection.string("PRAGMA journal_mode = WAL", "enable WAL")
            guard mode.lowercased() == "wal" else { throw StoreSchema.walRefused(mode, path: path) }
        }
        let synchronous = options.durability == .powerLoss ? "FULL" : "NORMAL"
        try connection.execute("PRAGMA synchronous = \(synchronous)", "set durability")
        // Freed pages and cells are zeroed, so a deleted or re-sealed token leaves no plain copy.
        try connection.execute("PRAGMA secure_delete = ON", "enable secure delete")
        try deadline.retrying { try StoreSchema.migrate(connection) }
        self.encrypted = options.encryption != nil
        if let encryption = options.encryption {
            let prepared = try deadline.retrying { try Self.prepareKeys(encryption, groups: accessGroups, connection: connection) }
            self.keys = prepared.keys
            self.unavailableKeys = prepared.unavailable
            self.keyStatus = prepared.status
        } else {
            self.keys = [:]
            self.unavailableKeys = [:]
            var status: [String: KeyStatus] = [:]
            for group in accessGroups.all {
                let recorded = try deadline.retrying { try Self.recordedKey(group, connection: connection) } != nil
                status[group] = recorded ? .unavailable(.storeOpenedWithoutKey(accessGroup: group, storePath: path)) : .plain
            }
            self.keyStatus = status
        }
        // The migration above ran a transaction, so the WAL index exists by now.
        self.state = StateLock(State(connection: connection, watcher: WALIndexWatcher(connection: connection)))
    }

    public func items(matching query: ItemQuery) throws -> [StoreItem] {
        try accessGroups.check(query)
        let (sql, bind) = select(query)
        return try state.withLock { state throws in
            let items = try readItems(sql, bind, on: state.connection)
            if query == ItemQuery() { state.damagedInLastFullRead = items.damaged }
            return items.items
        }
    }

    public func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws {
        let (sql, bind) = select(ItemQuery())
        let size = max(1, chunkSize)
        try state.withLock { state throws in
            var chunk: [StoreItem] = []
            chunk.reserveCapacity(size)
            // One statement, so one read transaction: the chunks are one state of the store.
            state.damagedInLastFullRead = try readItems(sql, bind, on: state.connection) { item in
                chunk.append(item)
                if chunk.count == size {
                    receive(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            if !chunk.isEmpty { receive(chunk) }
        }
    }

    /// The SELECT for `query` and its binder.
    private func select(_ query: ItemQuery) -> (String, (SQLiteStatement) -> Void) {
        let (whereClause, bind) = condition(for: query)
        // A query that names no more than a group reads most of the table: scan it in rowid order
        // instead of walking an index and sorting every row (4× faster for a whole cache).
        let scan = query.account == nil && query.service == nil && query.generic == nil && query.type == nil
        let sql = "SELECT access_group, account, service, type, generic, data, created, modified, envelope FROM items"
            + (scan ? " NOT INDEXED" : "") + " WHERE " + whereClause + " ORDER BY rowid"
        return (sql, bind)
    }

    /// Runs a ``select(_:)`` on `connection` (under the store's lock), opening encrypted payloads.
    /// Returns the items and how many damaged rows were skipped.
    private func readItems(
        _ sql: String, _ bind: (SQLiteStatement) -> Void, on connection: SQLiteConnection
    ) throws -> (items: [StoreItem], damaged: Int) {
        var items: [StoreItem] = []
        let damaged = try readItems(sql, bind, on: connection) { items.append($0) }
        return (items, damaged)
    }

    /// Runs a ``select(_:)`` on `connection`, handing each sound item to `receive` as it is read;
    /// returns how many damaged rows it skipped.
    private func readItems(
        _ sql: String, _ bind: (SQLiteStatement) -> Void, on connection: SQLiteConnection, _ receive: (StoreItem) -> Void
    ) throws -> Int {
        let sealed = try sealedGroups(on: connection)
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        bind(statement)
        var groups: [String] = []
        var damaged = 0
        while true {
            let code = statement.step()
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw connection.error(code, "query items") }
            var item = Self.item(from: statement, groups: &groups)
            switch try payload(of: item, envelope: statement.int64(8), sealedGroups: sealed) {
            case .sound(let data):
                item.data = data
                receive(item)
            case .damaged:
                damaged += 1
            }
        }
        return damaged
    }

    public func apply(_ batch: [StoreOperation]) throws -> BatchResult {
        try apply(batch, expecting: nil)!
    }

    public func apply(_ batch: [StoreOperation], ifUnchangedSince stamp: ChangeStamp) throws -> BatchResult? {
        try apply(batch, expecting: stamp)
    }

    public func applyPlanned(
        _ plan: (_ stamp: ChangeStamp, _ allItems: () throws -> [StoreItem]) throws -> [StoreOperation]
    ) throws -> BatchResult {
        try apply(expecting: nil) { stamp, connection in
            let (sql, bind) = select(ItemQuery())
            let batch = try plan(stamp) { try readItems(sql, bind, on: connection).items }
            try accessGroups.check(batch)
            return batch
        }!
    }

    private func apply(_ batch: [StoreOperation], expecting stamp: ChangeStamp?) throws -> BatchResult? {
        try accessGroups.check(batch)
        guard !batch.isEmpty else { return BatchResult() }
        return try apply(expecting: stamp) { _, _ in batch }
    }

    /// Runs `plan` and the batch it returns in one write transaction: under the write lock, with the
    /// stamp of the content the transaction sees. With `expecting`, a different stamp writes nothing
    /// and returns nil.
    private func apply(
        expecting stamp: ChangeStamp?,
        _ plan: (ChangeStamp, SQLiteConnection) throws -> [StoreOperation]
    ) throws -> BatchResult? {
        let now = Date().timeIntervalSince1970
        return try state.withLock { state throws -> BatchResult? in
            let connection = state.connection
            var dataVersion: Int64 = 0
            var wroteNothing = false
            let localCommits = state.localCommits
            let applied = try connection.writeTransaction("save batch") { () throws -> BatchResult? in
                // Under the write lock no other connection can commit: this is the version the
                // batch applies to, and data_version does not move for this connection's own commit.
                dataVersion = try connection.integer("PRAGMA data_version", "read data version")
                let current = ChangeStamp(UInt64(bitPattern: dataVersion), localCommits)
                if let stamp, current != stamp {
                    return nil  // someone committed since: nothing is written
                }
                let batch = try plan(current, connection)
                var result = BatchResult()
                if batch.isEmpty {
                    wroteNothing = true
                    return result
                }
                for operation in batch {
                    switch operation {
                    case .save(let item):
                        // Checked inside the transaction: a rejected item rolls back what the batch already did.
                        try StoreLimits.check(item, maximumDataSize: maximumDataSize)
                        if try update(item, at: now, on: connection) {
                            result.replaced += 1
                        } else {
                            try insert(item, at: now, on: connection)
                            result.added += 1
                        }
                    case .delete(let query):
                        result.deleted += try delete(query, on: connection)
                    }
                }
                return result
            }
            guard var result = applied else { return nil }
            if wroteNothing { return result }
            let version = UInt64(bitPattern: dataVersion)
            result.commit = CommitStamps(
                base: ChangeStamp(version, state.localCommits),
                result: ChangeStamp(version, state.localCommits &+ 1))
            state.localCommits &+= 1
            return result
        }
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

    /// Runs SQLite's `PRAGMA integrity_check`; returns its findings, empty when the file is sound.
    public func integrityCheck() throws -> [String] {
        try state.withLock { state throws(SQLiteStoreError) in
            let statement = try state.connection.statement("PRAGMA integrity_check")
            defer { statement.reset() }
            var findings: [String] = []
            while true {
                let code = statement.step()
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else { throw state.connection.error(code, "check integrity") }
                let line = statement.string(0)
                if line != "ok" { findings.append(line) }
            }
            return findings
        }
    }

    /// How many items each open access group holds, and how many of them are sealed. Reads no
    /// payload, so it works without any key.
    public func itemCounts() throws -> [String: (total: Int, sealed: Int)] {
        try state.withLock { state throws(SQLiteStoreError) in
            let statement = try state.connection.statement(
                "SELECT access_group, count(*), sum(envelope != 0) FROM items WHERE access_group IN (\(groupPlaceholders)) GROUP BY access_group")
            defer { statement.reset() }
            for (offset, group) in accessGroups.all.enumerated() { _ = statement.bind(group, at: Int32(offset + 1)) }
            var counts: [String: (total: Int, sealed: Int)] = [:]
            for group in accessGroups.all { counts[group] = (0, 0) }
            while true {
                let code = statement.step()
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else { throw state.connection.error(code, "count items") }
                counts[statement.string(0)] = (Int(statement.int64(1)), Int(statement.int64(2)))
            }
            return counts
        }
    }

    /// The data key the file records for each of the open access groups that has one: its public id
    /// and the kind of source it was kept in. Needs no key.
    public func recordedKeys() throws -> [String: (keyID: Data, source: String)] {
        try state.withLock { state throws(SQLiteStoreError) in
            var recorded: [String: (keyID: Data, source: String)] = [:]
            for group in accessGroups.all {
                if let key = try Self.recordedKey(group, connection: state.connection) { recorded[group] = (key.id, key.source) }
            }
            return recorded
        }
    }

    /// The schema version recorded in the file (`PRAGMA user_version`).
    public func schemaVersion() throws -> Int {
        try state.withLock { state throws(SQLiteStoreError) in
            Int(try state.connection.integer("PRAGMA user_version", "read schema version"))
        }
    }

    // MARK: - Damaged rows

    public func damagedItemCount() -> Int {
        state.withLock { $0.damagedInLastFullRead }
    }

    public func damagedItems() throws -> [DamagedItem] {
        try state.withLock { state throws in
            try damagedRows(on: state.connection).map(\.item)
        }
    }

    /// Removes every damaged row of the open groups in one transaction (found again under the write
    /// lock, so a row repaired meanwhile by another writer stays).
    public func removeDamagedItems() throws -> Int {
        try state.withLock { state throws -> Int in
            let connection = state.connection
            let removed = try connection.writeTransaction("remove damaged items") { () throws -> Int in
                let rows = try damagedRows(on: connection)
                for row in rows {
                    let statement = try connection.statement("DELETE FROM items WHERE rowid = ?")
                    defer { statement.reset() }
                    _ = statement.bind(row.rowid, at: 1)
                    let code = statement.step()
                    guard code == SQLITE_DONE else { throw connection.error(code, "remove damaged items") }
                }
                return rows.count
            }
            if removed > 0 {
                state.localCommits &+= 1
                state.damagedInLastFullRead = 0
            }
            return removed
        }
    }

    /// Every damaged row of the open groups, with its rowid.
    private func damagedRows(on connection: SQLiteConnection) throws -> [(rowid: Int64, item: DamagedItem)] {
        let sealed = try sealedGroups(on: connection)
        let statement = try connection.statement(
            "SELECT access_group, account, service, type, generic, data, created, modified, envelope, rowid FROM items "
                + "WHERE access_group IN (\(groupPlaceholders)) ORDER BY rowid")
        defer { statement.reset() }
        for (offset, group) in accessGroups.all.enumerated() { _ = statement.bind(group, at: Int32(offset + 1)) }
        var groups: [String] = []
        var damaged: [(rowid: Int64, item: DamagedItem)] = []
        while true {
            let code = statement.step()
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw connection.error(code, "find damaged items") }
            let item = Self.item(from: statement, groups: &groups)
            if case .damaged(let reason) = try payload(of: item, envelope: statement.int64(8), sealedGroups: sealed) {
                damaged.append((statement.int64(9), DamagedItem(identity: item.identity, reason: reason)))
            }
        }
        return damaged
    }

    // MARK: - Statements

    private func update(_ item: StoreItem, at now: Double, on connection: SQLiteConnection) throws -> Bool {
        let (payload, envelope) = try storedPayload(item, on: connection)
        let statement = try connection.statement(
            "UPDATE items SET generic = ?, data = ?, modified = ?, envelope = ? "
                + "WHERE access_group = ? AND account = ? AND service = ? AND type = ?")
        defer { statement.reset() }
        _ = statement.bind(item.generic, at: 1)
        _ = statement.bind(payload, at: 2)
        _ = statement.bind(now, at: 3)
        _ = statement.bind(envelope, at: 4)
        _ = statement.bind(item.accessGroup, at: 5)
        _ = statement.bind(item.account, at: 6)
        _ = statement.bind(item.service, at: 7)
        _ = statement.bind(Self.typeColumn(item.type), at: 8)
        let code = statement.step()
        guard code == SQLITE_DONE else { throw connection.error(code, "save item") }
        return connection.changes > 0
    }

    private func insert(_ item: StoreItem, at now: Double, on connection: SQLiteConnection) throws {
        let (payload, envelope) = try storedPayload(item, on: connection)
        let statement = try connection.statement(
            "INSERT INTO items (access_group, account, service, type, generic, data, created, modified, envelope) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { statement.reset() }
        _ = statement.bind(item.accessGroup, at: 1)
        _ = statement.bind(item.account, at: 2)
        _ = statement.bind(item.service, at: 3)
        _ = statement.bind(Self.typeColumn(item.type), at: 4)
        _ = statement.bind(item.generic, at: 5)
        _ = statement.bind(payload, at: 6)
        _ = statement.bind(now, at: 7)
        _ = statement.bind(now, at: 8)
        _ = statement.bind(envelope, at: 9)
        let code = statement.step()
        guard code == SQLITE_DONE else { throw connection.error(code, "add item") }
    }

    private func delete(_ query: ItemQuery, on connection: SQLiteConnection) throws(SQLiteStoreError) -> Int {
        let (whereClause, bind) = condition(for: query)
        let statement = try connection.statement("DELETE FROM items WHERE " + whereClause)
        defer { statement.reset() }
        bind(statement)
        let code = statement.step()
        guard code == SQLITE_DONE else { throw connection.error(code, "delete items") }
        return connection.changes
    }

    /// The WHERE clause for a query and a closure that binds its parameters.
    ///
    /// The clause text depends only on which attributes are named, so each shape is prepared once.
    private func condition(for query: ItemQuery) -> (String, (SQLiteStatement) -> Void) {
        var clauses: [String] = []
        var binders: [(SQLiteStatement, Int32) -> Void] = []
        if let group = query.accessGroup {
            clauses.append("access_group = ?")
            binders.append { _ = $0.bind(group, at: $1) }
        } else {
            clauses.append("access_group IN (\(groupPlaceholders))")
            for group in accessGroups.all { binders.append { _ = $0.bind(group, at: $1) } }
        }
        if let account = query.account {
            clauses.append("account = ?")
            binders.append { _ = $0.bind(account, at: $1) }
        }
        if let service = query.service {
            clauses.append("service = ?")
            binders.append { _ = $0.bind(service, at: $1) }
        }
        if let generic = query.generic {
            clauses.append("generic = ?")
            binders.append { _ = $0.bind(generic, at: $1) }
        }
        switch query.type {
        case nil: break
        case .code(let code):
            clauses.append("type = ?")
            binders.append { _ = $0.bind(Int64(code), at: $1) }
        case .absent:
            clauses.append("type = \(StoreSchema.absentType)")
        }
        let bind: (SQLiteStatement) -> Void = { statement in
            for (offset, binder) in binders.enumerated() { binder(statement, Int32(offset + 1)) }
        }
        return (clauses.joined(separator: " AND "), bind)
    }

    // MARK: - Encryption

    /// The bytes to store for `item` and its envelope column: sealed when the group has a key.
    private func storedPayload(_ item: StoreItem, on connection: SQLiteConnection) throws -> (Data, Int64) {
        if let key = keys[item.accessGroup] {
            return (try PayloadEnvelope.seal(item.data, identity: item.identity, key: key), StoreSchema.sealedEnvelope)
        }
        if let error = unavailableKeys[item.accessGroup] { throw error }
        // Opened without encryption: never add plain payloads to a group another opener sealed.
        if !encrypted, try Self.recordedKey(item.accessGroup, connection: connection) != nil {
            throw EncryptionError.storeOpenedWithoutKey(accessGroup: item.accessGroup, storePath: path)
        }
        return (item.data, StoreSchema.plainEnvelope)
    }

    /// A row's payload as stored: usable, or damaged (see ``DamagedItem``).
    private enum StoredPayload {
        case sound(Data)
        case damaged(DamagedItem.Reason)
    }

    /// The groups whose payloads are sealed: every group with a key (or an unavailable one) when
    /// opened with encryption, else the groups the file records a key for.
    private func sealedGroups(on connection: SQLiteConnection) throws(SQLiteStoreError) -> Set<String> {
        if encrypted { return Set(keys.keys).union(unavailableKeys.keys) }
        var sealed: Set<String> = []
        for group in accessGroups.all where try Self.recordedKey(group, connection: connection) != nil {
            sealed.insert(group)
        }
        return sealed
    }

    /// Opens `item`'s payload. A plain payload in a sealed group and a sealed payload that fails to
    /// open are damaged; a missing key is not damage (the whole group is unreadable) and throws.
    private func payload(of item: StoreItem, envelope: Int64, sealedGroups: Set<String>) throws(EncryptionError) -> StoredPayload {
        if envelope == StoreSchema.plainEnvelope {
            return sealedGroups.contains(item.accessGroup) ? .damaged(.unsealedInSealedGroup) : .sound(item.data)
        }
        do {
            return .sound(try openPayload(item))
        } catch {
            switch error {
            case .authenticationFailed, .sealedWithAnotherKey: return .damaged(.failedAuthentication)
            case .malformedEnvelope, .unsupportedEnvelope: return .damaged(.malformedEnvelope)
            default: throw error
            }
        }
    }

    private func openPayload(_ item: StoreItem) throws(EncryptionError) -> Data {
        guard let key = keys[item.accessGroup] else {
            throw unavailableKeys[item.accessGroup] ?? .storeOpenedWithoutKey(accessGroup: item.accessGroup, storePath: path)
        }
        return try PayloadEnvelope.open(item.data, identity: item.identity, key: key)
    }

    /// The key id and source kind the file records for `group`, if any.
    private static func recordedKey(_ group: String, connection: SQLiteConnection) throws(SQLiteStoreError) -> (id: Data, source: String)? {
        let statement = try connection.statement("SELECT key_id, source FROM data_keys WHERE access_group = ?")
        defer { statement.reset() }
        _ = statement.bind(group, at: 1)
        let code = statement.step()
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw connection.error(code, "read data keys") }
        return (statement.data(0) ?? Data(), statement.string(1))
    }

    private struct PreparedKeys {
        var keys: [String: DataKey] = [:]
        var unavailable: [String: EncryptionError] = [:]
        var status: [String: KeyStatus] = [:]
    }

    /// Finds or creates each group's key and seals the group's plain payloads, in one transaction.
    private static func prepareKeys(_ encryption: Encryption, groups: AccessGroups, connection: SQLiteConnection) throws -> PreparedKeys {
        guard let firstSource = encryption.keySources.first else {
            throw EncryptionError.malformedKey(reason: "encryption was asked for with no key source")
        }
        var sealedAny = false
        let prepared = try connection.writeTransaction("prepare data keys") { () throws -> PreparedKeys in
            var prepared = PreparedKeys()
            for group in groups.all {
                var found: (DataKey, KeySourceKind)?
                var isNewKey = false
                if let recorded = try recordedKey(group, connection: connection) {
                    for source in encryption.keySources {
                        if let key = try? source.existingKey(for: group, id: recorded.id) {
                            found = (key, source.kind)
                            break
                        }
                    }
                    guard found != nil else {
                        let error = EncryptionError.keyUnavailable(
                            accessGroup: group, keyID: recorded.id.map { String(format: "%02x", $0) }.joined(),
                            keptIn: recorded.source, searched: encryption.keySources.map(\.description), storePath: connection.path)
                        prepared.unavailable[group] = error
                        prepared.status[group] = .unavailable(error)
                        continue
                    }
                } else {
                    for source in encryption.keySources {
                        if let key = try source.existingKey(for: group, id: nil) {
                            found = (key, source.kind)
                            break
                        }
                    }
                    if found == nil { found = (try firstSource.createKey(for: group), firstSource.kind) }
                    isNewKey = true
                    let statement = try connection.statement(
                        "INSERT INTO data_keys (access_group, key_id, source, created) VALUES (?, ?, ?, ?)")
                    defer { statement.reset() }
                    _ = statement.bind(group, at: 1)
                    _ = statement.bind(found!.0.id, at: 2)
                    _ = statement.bind(found!.1.rawValue, at: 3)
                    _ = statement.bind(Date().timeIntervalSince1970, at: 4)
                    let code = statement.step()
                    guard code == SQLITE_DONE else { throw connection.error(code, "record data key") }
                }
                let (key, kind) = found!
                prepared.keys[group] = key
                prepared.status[group] = .available(keyID: key.idHex, source: kind)
                // The one-time migration of a group's plain payloads happens when its key is first
                // recorded, in the same transaction; afterwards a plain row in the group is damaged.
                if isNewKey, try sealPlainPayloads(group, key: key, connection: connection) > 0 { sealedAny = true }
            }
            return prepared
        }
        if sealedAny {
            // The plain payloads were in earlier WAL frames: checkpoint them away and truncate the log.
            _ = try? connection.integer("PRAGMA wal_checkpoint(TRUNCATE)", "truncate write-ahead log")
        }
        return prepared
    }

    /// Seals every plain payload of `group`; returns how many.
    private static func sealPlainPayloads(_ group: String, key: DataKey, connection: SQLiteConnection) throws -> Int {
        let select = try connection.statement(
            "SELECT rowid, account, service, type, data FROM items WHERE access_group = ? AND envelope = 0")
        _ = select.bind(group, at: 1)
        var rows: [(Int64, ItemIdentity, Data)] = []
        while true {
            let code = select.step()
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                select.reset()
                throw connection.error(code, "read plain payloads")
            }
            let type = select.int64(3)
            let identity = ItemIdentity(
                accessGroup: group, account: select.string(1), service: select.string(2),
                type: type == StoreSchema.absentType ? nil : UInt32(truncatingIfNeeded: type))
            rows.append((select.int64(0), identity, select.data(4) ?? Data()))
        }
        select.reset()
        for (rowid, identity, data) in rows {
            let update = try connection.statement("UPDATE items SET data = ?, envelope = ? WHERE rowid = ?")
            defer { update.reset() }
            _ = update.bind(try PayloadEnvelope.seal(data, identity: identity, key: key), at: 1)
            _ = update.bind(StoreSchema.sealedEnvelope, at: 2)
            _ = update.bind(rowid, at: 3)
            let code = update.step()
            guard code == SQLITE_DONE else { throw connection.error(code, "seal plain payloads") }
        }
        return rows.count
    }

    private static func typeColumn(_ type: UInt32?) -> Int64 {
        type.map(Int64.init) ?? StoreSchema.absentType
    }

    /// The item in `row`. `groups` holds the access groups met so far in this read: rows share them,
    /// so each is made once instead of once per row.
    private static func item(from row: SQLiteStatement, groups: inout [String]) -> StoreItem {
        let type = row.int64(3)
        let group: String
        if let known = groups.first(where: { row.textEquals(0, $0) }) {
            group = known
        } else {
            group = row.string(0)
            groups.append(group)
        }
        return StoreItem(
            accessGroup: group,
            account: row.string(1),
            service: row.string(2),
            generic: row.data(4),
            type: type == StoreSchema.absentType ? nil : UInt32(truncatingIfNeeded: type),
            data: row.data(5) ?? Data(),
            created: Date(timeIntervalSince1970: row.double(6)),
            modified: Date(timeIntervalSince1970: row.double(7))
        )
    }
}
