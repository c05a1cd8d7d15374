import CSQLite
import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Partitions (schema 3): each partition's revision, catching up by partition, and the lookup-key
/// index. See docs/architecture.md, "Partitions and lookup keys".
///
/// Revisions are `ChangeStamp(counter, epoch)`: `counter` is `store_revision.revision` as of the last
/// commit that changed the partition (0 for one never changed since the file reached schema 3), and
/// `epoch` is the file's random epoch, so a revision of another file (or of this one before its
/// counter was reset) is never taken for one of this file.
extension SQLiteStore: PartitionTrackingStore, LookupKeyIndexingStore {
    /// Counters at or above this are treated as damaged: far beyond what any store reaches, and
    /// far enough from `Int64.max` that adding to one never overflows.
    static let revisionLimit: Int64 = 1 << 62

    public var keepsLookupKeys: Bool { true }

    public func readPartition(accessGroup: String, account: String) throws -> PartitionRead {
        try readPartitions([PartitionID(accessGroup: accessGroup, account: account)])[0]
    }

    /// Every partition in one read transaction (one snapshot of the file, its epoch read once).
    public func readPartitions(_ partitions: [PartitionID]) throws -> [PartitionRead] {
        for partition in partitions { try accessGroups.check(partition.accessGroup) }
        return try state.withLock { state throws in
            let connection = state.connection
            return try connection.readTransaction("read partition") { () throws in
                let epoch = try Self.storeRevision(on: connection)?.epoch ?? 0
                return try partitions.map { partition throws in
                    PartitionRead(
                        items: try readItems(partition, on: connection),
                        revision: ChangeStamp(UInt64(bitPattern: try revision(of: partition, on: connection)), UInt64(bitPattern: epoch)))
                }
            }
        }
    }

    /// The revision counter the `partitions` table records for `partition` (0 when none).
    private func revision(of partition: PartitionID, on connection: SQLiteConnection) throws(SQLiteStoreError) -> Int64 {
        let statement = try connection.statement("SELECT revision FROM partitions WHERE access_group = ? AND account = ?")
        defer { statement.reset() }
        _ = statement.bind(partition.accessGroup, at: 1)
        _ = statement.bind(partition.account, at: 2)
        let code = statement.step()
        guard code == SQLITE_ROW || code == SQLITE_DONE else { throw connection.error(code, "read partition revision") }
        // A non-integer value (only a hand-edited file has one) reads as its integer conversion:
        // whatever it is, it changes when a commit stamps the partition again.
        return code == SQLITE_ROW ? statement.int64(0) : 0
    }

    private func readItems(_ partition: PartitionID, on connection: SQLiteConnection) throws -> [StoreItem] {
        let (sql, bind) = select(ItemQuery(accessGroup: partition.accessGroup, account: partition.account))
        return try readItems(sql, bind, on: connection).items
    }

    public func partitionChanges(since revision: ChangeStamp?) throws -> PartitionChanges? {
        try state.withLock { state throws -> PartitionChanges? in
            let connection = state.connection
            return try connection.readTransaction("read partition changes") { () throws(SQLiteStoreError) -> PartitionChanges? in
                guard let current = try Self.storeRevision(on: connection) else { return nil }
                let now = ChangeStamp(UInt64(current.counter), UInt64(bitPattern: current.epoch))
                guard let revision else { return PartitionChanges(revision: now, partitions: []) }
                // Another file's revision, or one ahead of this file's counter (the file was replaced
                // or restored from a copy): the history since then is not this file's to tell.
                guard revision.second == now.second, revision.first <= now.first else { return nil }
                // `+access_group`: walk the revision index (the few recent rows), never the whole table.
                let statement = try connection.statement(
                    "SELECT access_group, account FROM partitions WHERE revision > ? AND +access_group IN (\(groupPlaceholders))")
                defer { statement.reset() }
                _ = statement.bind(Int64(revision.first), at: 1)
                for (offset, group) in accessGroups.all.enumerated() { _ = statement.bind(group, at: Int32(offset + 2)) }
                return PartitionChanges(revision: now, partitions: try Self.partitionRows(statement, on: connection))
            }
        }
    }

    public func partitions(withLookupKey key: String) throws -> [PartitionID]? {
        try state.withLock { state throws -> [PartitionID]? in
            let connection = state.connection
            return try connection.readTransaction("find partitions by lookup key") { () throws -> [PartitionID]? in
                let incomplete = try connection.statement(
                    "SELECT count(*) FROM lookup_keys_incomplete WHERE access_group IN (\(groupPlaceholders))")
                for (offset, group) in accessGroups.all.enumerated() { _ = incomplete.bind(group, at: Int32(offset + 1)) }
                let code = incomplete.step()
                guard code == SQLITE_ROW else {
                    incomplete.reset()
                    throw connection.error(code, "read lookup-key completeness")
                }
                let missing = incomplete.int64(0)
                incomplete.reset()
                if missing != 0 { return nil }
                // Per group: in a sealed group the index holds keys blinded under the group's key.
                var partitions: [PartitionID] = []
                for group in accessGroups.all {
                    let statement = try connection.statement("SELECT access_group, account FROM lookup_keys WHERE access_group = ? AND key = ?")
                    defer { statement.reset() }
                    _ = statement.bind(group, at: 1)
                    _ = statement.bind(try storedLookupKey(key, group: group, on: connection), at: 2)
                    partitions += try Self.partitionRows(statement, on: connection)
                }
                return partitions
            }
        }
    }

    /// The (access group, account) rows a statement returns, as partitions of the open groups.
    static func partitionRows(_ statement: SQLiteStatement, on connection: SQLiteConnection) throws(SQLiteStoreError) -> [PartitionID] {
        var partitions: [PartitionID] = []
        var seen = Set<PartitionID>()
        while true {
            let code = statement.step()
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw connection.error(code, "read partitions") }
            let partition = PartitionID(accessGroup: statement.string(0), account: statement.string(1))
            if seen.insert(partition).inserted { partitions.append(partition) }
        }
        return partitions
    }

    /// The file's revision counter and epoch; `nil` when the row is missing or holds anything but
    /// integers in range (a damaged or hand-edited file: the next commit starts a new epoch).
    static func storeRevision(on connection: SQLiteConnection) throws(SQLiteStoreError) -> (counter: Int64, epoch: Int64)? {
        let statement = try connection.statement(
            "SELECT revision, epoch FROM store_revision WHERE id = 1 AND typeof(revision) = 'integer' "
                + "AND typeof(epoch) = 'integer' AND revision >= 0 AND revision < \(revisionLimit)")
        defer { statement.reset() }
        let code = statement.step()
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw connection.error(code, "read store revision") }
        return (statement.int64(0), statement.int64(1))
    }

    // MARK: - Writing (inside a write transaction)

    /// Advances the counter and records it as the revision of each of `partitions`. A missing or
    /// damaged counter starts a new epoch, which makes every revision issued before it unknown.
    func stampPartitions(_ partitions: Set<PartitionID>, on connection: SQLiteConnection) throws(SQLiteStoreError) {
        guard !partitions.isEmpty else { return }
        let next: Int64
        // One statement: it advances a sound counter and returns it, or matches no row.
        let advance = try connection.statement(
            "UPDATE store_revision SET revision = revision + 1 WHERE id = 1 AND typeof(revision) = 'integer' "
                + "AND typeof(epoch) = 'integer' AND revision >= 0 AND revision < \(Self.revisionLimit - 1) RETURNING revision")
        let code = advance.step()
        let advanced: Int64? = code == SQLITE_ROW ? advance.int64(0) : nil
        if code == SQLITE_ROW { _ = advance.step() }  // runs the statement to its end
        advance.reset()
        guard code == SQLITE_ROW || code == SQLITE_DONE else { throw connection.error(code, "advance store revision") }
        if let advanced {
            next = advanced
        } else {
            next = 1
            try connection.execute(
                "DELETE FROM store_revision; DELETE FROM partitions; "
                    + "INSERT INTO store_revision (id, revision, epoch) VALUES (1, 1, random());",
                "start a new store revision epoch")
        }
        let upsert = try connection.statement(
            "INSERT INTO partitions (access_group, account, revision) VALUES (?, ?, ?) "
                + "ON CONFLICT (access_group, account) DO UPDATE SET revision = excluded.revision")
        for partition in partitions {
            defer { upsert.reset() }
            _ = upsert.bind(partition.accessGroup, at: 1)
            _ = upsert.bind(partition.account, at: 2)
            _ = upsert.bind(next, at: 3)
            let code = upsert.step()
            guard code == SQLITE_DONE else { throw connection.error(code, "record partition revision") }
        }
    }

    /// How `key` is kept in `group`'s index: as given in a plain group; blinded under the group's data
    /// key in a sealed one (lookup keys are usernames, which sealed payloads keep from view).
    func storedLookupKey(_ key: String, group: String, on connection: SQLiteConnection) throws -> String {
        if let dataKey = keys[group] { return dataKey.blindedIndexValue(key) }
        if let error = unavailableKeys[group] { throw error }
        if !encrypted, try Self.recordedKey(group, connection: connection) != nil {
            throw EncryptionError.storeOpenedWithoutKey(accessGroup: group, storePath: path)
        }
        return key
    }

    /// Blinds the lookup keys of `group` under `key`: part of the one-time sealing of a group, when
    /// its key is first recorded.
    /// Returns how many it blinded.
    static func blindLookupKeys(_ group: String, key: DataKey, connection: SQLiteConnection) throws(SQLiteStoreError) -> Int {
        let select = try connection.statement("SELECT key, account FROM lookup_keys WHERE access_group = ?")
        _ = select.bind(group, at: 1)
        var rows: [(key: String, account: String)] = []
        while true {
            let code = select.step()
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                select.reset()
                throw connection.error(code, "read lookup keys")
            }
            rows.append((select.string(0), select.string(1)))
        }
        select.reset()
        guard !rows.isEmpty else { return 0 }
        let remove = try connection.statement("DELETE FROM lookup_keys WHERE access_group = ?")
        _ = remove.bind(group, at: 1)
        let code = remove.step()
        remove.reset()
        guard code == SQLITE_DONE else { throw connection.error(code, "blind lookup keys") }
        let insert = try connection.statement("INSERT OR IGNORE INTO lookup_keys (access_group, key, account) VALUES (?, ?, ?)")
        for row in rows {
            defer { insert.reset() }
            _ = insert.bind(group, at: 1)
            _ = insert.bind(key.blindedIndexValue(row.key), at: 2)
            _ = insert.bind(row.account, at: 3)
            let code = insert.step()
            guard code == SQLITE_DONE else { throw connection.error(code, "blind lookup keys") }
        }
        return rows.count
    }

    /// Replaces the lookup keys of `partition` with `keys`.
    func setLookupKeys(_ partition: PartitionID, keys: [String], on connection: SQLiteConnection) throws {
        let remove = try connection.statement("DELETE FROM lookup_keys WHERE access_group = ? AND account = ?")
        _ = remove.bind(partition.accessGroup, at: 1)
        _ = remove.bind(partition.account, at: 2)
        let code = remove.step()
        remove.reset()
        guard code == SQLITE_DONE else { throw connection.error(code, "replace lookup keys") }
        let insert = try connection.statement("INSERT OR IGNORE INTO lookup_keys (access_group, key, account) VALUES (?, ?, ?)")
        for key in keys {
            let stored = try storedLookupKey(key, group: partition.accessGroup, on: connection)
            defer { insert.reset() }
            _ = insert.bind(partition.accessGroup, at: 1)
            _ = insert.bind(stored, at: 2)
            _ = insert.bind(partition.account, at: 3)
            let code = insert.step()
            guard code == SQLITE_DONE else { throw connection.error(code, "set lookup keys") }
        }
    }

    /// Marks `group`'s lookup keys as complete.
    func declareLookupKeysComplete(_ group: String, on connection: SQLiteConnection) throws(SQLiteStoreError) {
        let statement = try connection.statement("DELETE FROM lookup_keys_incomplete WHERE access_group = ?")
        defer { statement.reset() }
        _ = statement.bind(group, at: 1)
        let code = statement.step()
        guard code == SQLITE_DONE else { throw connection.error(code, "declare lookup keys complete") }
    }
}
