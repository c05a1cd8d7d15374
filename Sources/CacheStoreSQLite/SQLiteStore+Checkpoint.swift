import CacheStore

/// Folding the write-ahead log back into the database file between the batches of a long write.
///
/// SQLite's own automatic checkpoint (after a commit leaves more than 1,000 pages in the log) is
/// also `PASSIVE`; what it never does is shrink the file, so one large transaction left a log as
/// large as itself until the last connection closed. `PASSIVE` never waits for other processes'
/// readers: a reader still on an older snapshot keeps its frames, and the next writer after it
/// starts the log over from its beginning, so the file stays at about one batch. `TRUNCATE` (after
/// the last batch) empties it when no reader is in it at that instant, and is skipped otherwise.
extension SQLiteStore: LogCheckpointingStore {
    @discardableResult
    public func checkpointLog(truncating: Bool) throws -> Bool {
        try state.withLock { state throws(SQLiteStoreError) in
            try state.connection.checkpoint(truncate: truncating)
        }
    }
}
