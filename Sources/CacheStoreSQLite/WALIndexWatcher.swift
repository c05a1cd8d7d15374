import CSQLite

/// Notices commits to a WAL database without running a query, by reading the header of SQLite's
/// shared-memory WAL index, which every commit rewrites.
///
/// The header layout is SQLite's documented file format ("WAL-Index Format"): `iVersion` (3007000)
/// at byte 0, `iChange` (incremented by every commit) at 8, `mxFrame` at 16, the WAL salts at 32
/// and 36. The watcher reads SQLite's own mapping of that region (see `tc_wal_index`) and
/// compares those words with the ones seen last: equal words mean no commit in between, so the
/// caller may skip `PRAGMA data_version`. It only ever says "maybe changed" or "unchanged": a false
/// alarm costs one query, and anything unexpected (no mapping, another header version) disables it.
///
/// Used only under the store's lock, while its connection is open.
struct WALIndexWatcher {
    private let header: UnsafeRawPointer

    /// The words of the header that change on commit.
    struct Snapshot: Equatable {
        let change: UInt32
        let maxFrame: UInt32
        let salt1: UInt32
        let salt2: UInt32
    }

    /// The watcher for `connection`'s database, or `nil` when its WAL index cannot be read.
    init?(connection: SQLiteConnection) {
        guard let region = connection.walIndexRegion else { return nil }
        header = region
        guard word(0) == 3_007_000 else { return nil }
    }

    private func word(_ offset: Int) -> UInt32 {
        UInt32(tc_load_acquire_u32(header + offset))
    }

    /// The header words as they are now.
    func snapshot() -> Snapshot {
        // iChange is read first and last: a writer rewrites it with the rest of the header, so a
        // torn read is recognized and reported as a change.
        let change = word(8)
        let snapshot = Snapshot(change: change, maxFrame: word(16), salt1: word(32), salt2: word(36))
        return word(8) == change ? snapshot : Snapshot(change: change &+ 1, maxFrame: .max, salt1: 0, salt2: 0)
    }
}
