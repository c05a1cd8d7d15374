import CSQLite
import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Writes: atomic batches, planned batches, and the statements they run.
extension SQLiteStore {
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
            // The whole read's SQL is built only for a plan that reads everything (most read nothing).
            let batch = try plan(stamp) {
                let (sql, bind) = select(ItemQuery())
                return try readItems(sql, bind, on: connection).items
            }
            try accessGroups.check(batch)
            return batch
        }!
    }

    func apply(_ batch: [StoreOperation], expecting stamp: ChangeStamp?) throws -> BatchResult? {
        try accessGroups.check(batch)
        guard !batch.isEmpty else { return BatchResult() }
        return try apply(expecting: stamp) { _, _ in batch }
    }

    /// Runs `plan` and the batch it returns in one write transaction: under the write lock, with the
    /// stamp of the content the transaction sees. With `expecting`, a different stamp writes nothing
    /// and returns nil.
    func apply(
        expecting stamp: ChangeStamp?,
        _ plan: (ChangeStamp, SQLiteConnection) throws -> [StoreOperation]
    ) throws -> BatchResult? {
        if let readOnly { throw SQLiteStoreError.readOnly(path: path, operation: "save batch", readOnly) }
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
                try LiveFiles.check(connection)
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
                var touched = Set<PartitionID>()
                var plainGroups: [String] = []
                var keyFilesChecked: Set<String> = []
                for operation in batch {
                    switch operation {
                    case .save(let item):
                        // Checked inside the transaction: a rejected item rolls back what the batch already did.
                        try StoreLimits.check(item, maximumDataSize: maximumDataSize)
                        try checkKeyFile(of: item.accessGroup, checked: &keyFilesChecked)
                        // Sealed once, whether the row is replaced or added.
                        let stored = try storedPayload(item, on: connection, plainGroups: &plainGroups)
                        if try update(item, stored: stored, at: now, on: connection) {
                            result.replaced += 1
                        } else {
                            try insert(item, stored: stored, at: now, on: connection)
                            result.added += 1
                        }
                        touched.insert(item.partition)
                    case .delete(let query):
                        result.deleted += try delete(query, on: connection, recordingIn: &touched)
                    case .setLookupKeys(let partition, let keys):
                        try setLookupKeys(partition, keys: keys, on: connection)
                    case .declareLookupKeysComplete(let group):
                        try declareLookupKeysComplete(group, on: connection)
                    }
                }
                try stampPartitions(touched, on: connection)
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

    /// Throws when the key file `group`'s key came from no longer holds that key (removed, or
    /// replaced by one of other keys): what this process sealed, no other could open. Once a batch.
    func checkKeyFile(of group: String, checked: inout Set<String>) throws {
        guard let path = keyFiles[group], let key = keys[group], checked.insert(group).inserted else { return }
        let current = try? KeyFile(path: path).existingKey(for: group, id: key.id)
        guard current != nil else {
            throw SQLiteStoreError.replacedWhileOpen(
                path: path, problem: "(the key file of access group '\(group)') was removed, or no longer holds the key this store seals with,")
        }
    }

    /// Replaces the row of `item`'s identity with `stored` (its payload as stored and envelope
    /// column); false when there is none.
    func update(_ item: StoreItem, stored: (payload: Data, envelope: Int64), at now: Double, on connection: SQLiteConnection) throws -> Bool {
        let (payload, envelope) = stored
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

    /// Adds a row for `item` with `stored` (its payload as stored and envelope column).
    func insert(_ item: StoreItem, stored: (payload: Data, envelope: Int64), at now: Double, on connection: SQLiteConnection) throws {
        let (payload, envelope) = stored
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

    /// Deletes the items `query` matches, adding their partitions to `touched`; returns how many.
    func delete(
        _ query: ItemQuery, on connection: SQLiteConnection, recordingIn touched: inout Set<PartitionID>
    ) throws(SQLiteStoreError) -> Int {
        let (whereClause, bind) = condition(for: query)
        let statement = try connection.statement("DELETE FROM items WHERE " + whereClause + " RETURNING access_group, account")
        defer { statement.reset() }
        bind(statement)
        var deleted = 0
        while true {
            let code = statement.step()
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw connection.error(code, "delete items") }
            deleted += 1
            touched.insert(PartitionID(accessGroup: statement.string(0), account: statement.string(1)))
        }
        return deleted
    }

    /// The WHERE clause for a query and a closure that binds its parameters.
    ///
    /// The clause text depends only on which attributes are named, so each shape is prepared once.
    func condition(for query: ItemQuery) -> (String, (SQLiteStatement) -> Void) {
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
}
