import CSQLite
import CacheStore

/// Pruning the partition records of removed partitions (`tokencache repair`).
///
/// A `partitions` row outlives its partition's last item on purpose: it is the tombstone through
/// which `partitionChanges(since:)` tells other processes that the partition was emptied. Pruning
/// the rows of empty partitions therefore also starts a new epoch (the counter is kept): every
/// revision issued before is then unknown, so a process that had not caught up reads the store whole
/// once instead of missing the deletion, and a partition made again later gets a revision of the
/// new epoch, which no older revision equals.
extension SQLiteStore: PartitionPruningStore {
    public func pruneRemovedPartitions() throws -> PrunedRecords {
        try state.withLock { state throws -> PrunedRecords in
            let connection = state.connection
            let pruned = try connection.writeTransaction("prune removed partitions") { () throws(SQLiteStoreError) -> PrunedRecords in
                let rows = try deleteEmpty(from: "partitions", on: connection)
                let keys = try deleteEmpty(from: "lookup_keys", on: connection)
                if rows > 0 {
                    // A missing or damaged counter row is left alone: the next commit starts a new epoch anyway.
                    try connection.execute(
                        "UPDATE store_revision SET epoch = random() WHERE id = 1 AND typeof(epoch) = 'integer'",
                        "start a new store revision epoch")
                }
                return PrunedRecords(partitions: rows, lookupKeys: keys)
            }
            if pruned != PrunedRecords() { state.localCommits &+= 1 }
            return pruned
        }
    }

    /// Deletes the rows of `table` (keyed by access group and account) in the open groups whose
    /// partition holds no item (one probe of the items' identity index per row); returns how many.
    private func deleteEmpty(from table: String, on connection: SQLiteConnection) throws(SQLiteStoreError) -> Int {
        let statement = try connection.statement(
            "DELETE FROM \(table) WHERE access_group IN (\(groupPlaceholders)) AND NOT EXISTS "
                + "(SELECT 1 FROM items WHERE items.access_group = \(table).access_group AND items.account = \(table).account)")
        defer { statement.reset() }
        for (offset, group) in accessGroups.all.enumerated() { _ = statement.bind(group, at: Int32(offset + 1)) }
        let code = statement.step()
        guard code == SQLITE_DONE else { throw connection.error(code, "prune removed partitions") }
        return connection.changes
    }
}
