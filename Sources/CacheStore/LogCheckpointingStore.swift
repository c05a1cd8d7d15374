/// A store that keeps a write-ahead log beside its data (SQLite in WAL mode) and can fold it back
/// in on request, so a long run of batches (an import) leaves a log of one batch, not of all.
public protocol LogCheckpointingStore: ItemStore {
    /// Copies what is committed in the log into the store's main file as far as no reader still
    /// needs it, without waiting for anyone; with `truncating`, then empties the log file if no
    /// reader is using it at that instant. Returns whether everything committed was copied.
    @discardableResult
    func checkpointLog(truncating: Bool) throws -> Bool
}
