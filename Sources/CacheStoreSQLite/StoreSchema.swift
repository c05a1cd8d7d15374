import CSQLite

/// The store's table layout and the migrations that bring any older file up to date.
///
/// `PRAGMA user_version` records the schema version and `PRAGMA application_id` marks the file as a
/// tokencache store. Each migration runs inside the opening transaction, so a file is either at its
/// old version or fully at the new one.
enum StoreSchema {
    /// `'tkca'`: tells a tokencache store from another program's SQLite database.
    static let applicationID: Int64 = 0x746B_6361

    /// `type` is NOT NULL with -1 for "absent", so that the identity index treats two type-less items
    /// with the same account and service as the same item (SQL unique indexes treat NULLs as distinct).
    static let absentType: Int64 = -1

    /// Migration `n` (1-based) takes a file from version `n - 1` to version `n`.
    static let migrations: [String] = [
        """
        CREATE TABLE items (
            access_group TEXT NOT NULL,
            account      TEXT NOT NULL,
            service      TEXT NOT NULL,
            type         INTEGER NOT NULL,
            generic      BLOB,
            data         BLOB NOT NULL,
            created      REAL NOT NULL,
            modified     REAL NOT NULL
        );
        CREATE UNIQUE INDEX items_identity ON items (access_group, account, service, type);
        CREATE INDEX items_group_type ON items (access_group, type);
        """,
        // 2: encryption at rest. `envelope` says how `data` is stored: 0 plain bytes (v1 rows, and
        // stores opened without encryption), 1 a `PayloadEnvelope` v1 (AES-256-GCM). `data_keys`
        // records which key seals each access group (its public id and where it was kept), so a
        // missing or wrong key is reported as such and never replaced by a new one.
        """
        ALTER TABLE items ADD COLUMN envelope INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE data_keys (
            access_group TEXT PRIMARY KEY,
            key_id       BLOB NOT NULL,
            source       TEXT NOT NULL,
            created      REAL NOT NULL
        );
        """,
        // 3: partitions (see docs/architecture.md, "Partitions and lookup keys"). `store_revision`
        // is the store's revision counter, bumped by every commit that changes items, with a random
        // `epoch` telling this file's revisions from any other's. `partitions` records, per (access
        // group, account), the counter of the last commit that changed it. `lookup_keys` is the
        // index of opaque keys (usernames) to partitions; `lookup_keys_incomplete` names the groups
        // that held items before the index existed, until a writer declares them indexed.
        // IF NOT EXISTS / OR IGNORE: a file whose version was set back runs this again without failing.
        """
        CREATE TABLE IF NOT EXISTS store_revision (
            id       INTEGER PRIMARY KEY CHECK (id = 1),
            revision INTEGER NOT NULL,
            epoch    INTEGER NOT NULL
        );
        INSERT OR IGNORE INTO store_revision (id, revision, epoch) VALUES (1, 0, random());
        CREATE TABLE IF NOT EXISTS partitions (
            access_group TEXT NOT NULL,
            account      TEXT NOT NULL,
            revision     INTEGER NOT NULL,
            PRIMARY KEY (access_group, account)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS partitions_revision ON partitions (revision);
        CREATE TABLE IF NOT EXISTS lookup_keys (
            access_group TEXT NOT NULL,
            key          TEXT NOT NULL,
            account      TEXT NOT NULL,
            PRIMARY KEY (access_group, key, account)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS lookup_keys_partition ON lookup_keys (access_group, account);
        CREATE TABLE IF NOT EXISTS lookup_keys_incomplete (
            access_group TEXT PRIMARY KEY
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO lookup_keys_incomplete (access_group) SELECT DISTINCT access_group FROM items;
        """,
    ]

    /// Indexes earlier versions made that no query needs, dropped at every read-write open that
    /// finds one (see ``dropRetiredIndexes(_:)``).
    ///
    /// `items_group_generic_type` (`access_group, generic, type`) served the one query by `generic`,
    /// the legacy entries' (`type` absent), which `items_group_type`'s range of type -1 answers as
    /// well: only legacy entries and the wipe record have no type. Every item a save adds cost it a
    /// leaf at a place of its own; a first sign-in's commit wrote about 9 of its 37 pages there.
    static let retiredIndexes = ["items_group_generic_type"]

    /// `items.envelope` for a payload stored as plain bytes.
    static let plainEnvelope: Int64 = 0
    /// `items.envelope` for a payload sealed in a ``PayloadEnvelope`` of version 1.
    static let sealedEnvelope: Int64 = 1

    static var latestVersion: Int32 { Int32(migrations.count) }

    /// Throws unless the file is empty or a tokencache store this version can read. Writes nothing,
    /// so it runs before anything (journal mode included) touches a file that may be someone else's.
    ///
    /// - Returns: the file's schema version, and whether it still has to be marked as a store.
    @discardableResult
    static func inspect(_ connection: SQLiteConnection) throws(SQLiteStoreError) -> (version: Int32, isNew: Bool) {
        // One read transaction: the three reads see one state of the file, never a creator's commit
        // landing between them (which once made a half-read new store look foreign).
        if connection.isAutocommit {
            try connection.execute("BEGIN", "inspect database")
            defer { connection.endReadTransaction() }
            return try inspectFacts(connection)
        }
        return try inspectFacts(connection)
    }

    private static func inspectFacts(_ connection: SQLiteConnection) throws(SQLiteStoreError) -> (version: Int32, isNew: Bool) {
        let applicationID = try connection.integer("PRAGMA application_id", "read application id")
        let version = Int32(truncatingIfNeeded: try connection.integer("PRAGMA user_version", "read schema version"))
        var isNew = false
        if applicationID != Self.applicationID {
            let objects = try connection.integer("SELECT count(*) FROM sqlite_schema", "inspect database")
            guard applicationID == 0 && objects == 0 && version == 0 else {
                throw .notATokenCacheStore(path: connection.path)
            }
            isNew = true
        }
        guard version <= latestVersion else {
            throw .newerSchema(path: connection.path, found: version, supported: latestVersion)
        }
        return (version, isNew)
    }

    /// The error for a file system that keeps the journal mode from becoming WAL.
    static func walRefused(_ mode: String, path: String) -> SQLiteStoreError {
        .sqlite(SQLiteError(
            code: SQLITE_CANTOPEN, extendedCode: SQLITE_CANTOPEN,
            message: "the file system refused write-ahead logging (journal mode stayed \(mode))",
            operation: "enable WAL", path: path))
    }

    /// Brings the database up to ``latestVersion``; refuses foreign and newer files without changing them.
    static func migrate(_ connection: SQLiteConnection) throws {
        try connection.writeTransaction("open store") { () throws(SQLiteStoreError) in
            // Checked again under the write lock: another process may have created the schema meanwhile.
            let (version, isNew) = try inspect(connection)
            if isNew {
                try connection.execute("PRAGMA application_id = \(Self.applicationID)", "mark store")
            }
            for step in Int(version)..<migrations.count {
                try connection.execute(migrations[step], "migrate store to schema \(step + 1)")
            }
            if version < latestVersion {
                try connection.execute("PRAGMA user_version = \(latestVersion)", "record schema version")
            }
            try dropRetiredIndexes(connection)
        }
    }

    /// Drops the ``retiredIndexes`` the file has. Not a schema version: a file without them is one
    /// every version reads and writes as before (queries name no index), so processes of older
    /// versions keep sharing it; one of them creating a new file makes them again, and the next
    /// open of this version drops them. Inside the opening write transaction.
    static func dropRetiredIndexes(_ connection: SQLiteConnection) throws(SQLiteStoreError) {
        for name in retiredIndexes {
            let statement = try connection.statement("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?")
            _ = statement.bind(name, at: 1)
            let code = statement.step()
            statement.reset()
            guard code == SQLITE_ROW || code == SQLITE_DONE else { throw connection.error(code, "look for retired index \(name)") }
            guard code == SQLITE_ROW else { continue }
            // Its pages hold attributes, which the table keeps readable anyway, never a payload: freed
            // without zeroing them (`FAST`), so dropping it on a store of millions of items writes
            // a few pages rather than every page of the index again.
            // Secure delete comes back on before anything else runs on this connection, or the
            // open fails: a connection that left it off would free token pages unzeroed.
            try connection.execute("PRAGMA secure_delete = FAST", "drop retired index")
            do {
                try connection.execute("DROP INDEX IF EXISTS \(name)", "drop retired index \(name)")
            } catch {
                try connection.execute("PRAGMA secure_delete = ON", "drop retired index")
                throw error
            }
            try connection.execute("PRAGMA secure_delete = ON", "drop retired index")
        }
    }
}
