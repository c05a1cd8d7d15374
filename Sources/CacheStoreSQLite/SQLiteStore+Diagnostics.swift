import CSQLite
import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// What `doctor` and a linked library may ask of a store beyond the contract: integrity, counts,
/// recorded keys, the schema version, and damaged rows.
extension SQLiteStore: DamageReportingStore {
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
                try stampPartitions(Set(rows.map { PartitionID(accessGroup: $0.item.identity.accessGroup, account: $0.item.identity.account) }), on: connection)
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
    func damagedRows(on connection: SQLiteConnection) throws -> [(rowid: Int64, item: DamagedItem)] {
        let sealed = try sealedGroups(on: connection)
        let statement = try connection.statement(
            "SELECT access_group, account, service, type, generic, data, created, modified, envelope, rowid FROM items "
                + "WHERE access_group IN (\(groupPlaceholders)) ORDER BY rowid")
        defer { statement.reset() }
        for (offset, group) in accessGroups.all.enumerated() { _ = statement.bind(group, at: Int32(offset + 1)) }
        var shared = SharedAttributes()
        var damaged: [(rowid: Int64, item: DamagedItem)] = []
        while true {
            let code = statement.step()
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw connection.error(code, "find damaged items") }
            let item = Self.item(from: statement, shared: &shared)
            if case .damaged(let reason) = try payload(of: item, envelope: statement.int64(8), sealedGroups: sealed) {
                damaged.append((statement.int64(9), DamagedItem(identity: item.identity, reason: reason)))
            }
        }
        return damaged
    }
}
