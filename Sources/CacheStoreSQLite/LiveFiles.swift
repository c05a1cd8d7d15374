#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the files an open connection writes are still the store's: checked at each write, under
/// the write lock, so that a store file renamed over, a write-ahead log removed or cut short, finds
/// the write refused instead of reported done while it lands where nobody reads it.
///
/// No legitimate writer does any of these while a connection is open (SQLite removes and
/// truncates the log only when it holds every lock, and tokencache never renames a store), so the
/// checks have no false alarms; they cost a few `stat` calls per write transaction.
enum LiveFiles {
    /// The size of the WAL header and of each frame's header (SQLite's file format, "WAL Format").
    private static let walHeaderSize: Int64 = 32
    private static let frameHeaderSize: Int64 = 24

    /// Throws ``SQLiteStoreError/replacedWhileOpen(path:problem:)`` or
    /// ``SQLiteStoreError/truncatedWhileOpen(path:size:expected:)`` when a file `connection` has
    /// open is no longer the one at its path, or the log holds fewer frames than the WAL index's
    /// header says it does. Called inside a write transaction, where that header is current.
    static func check(_ connection: SQLiteConnection) throws(SQLiteStoreError) {
        let path = connection.path
        if let fd = connection.descriptor(journal: false) {
            try same(fd, path: path, what: "the store file")
        }
        if let fd = connection.descriptor(journal: true) {
            let wal = path + "-wal"
            try same(fd, path: wal, what: "the store's write-ahead log")
            if let maxFrame = WALIndexWatcher(connection: connection)?.snapshot().maxFrame, maxFrame > 0 {
                var info = stat()
                let pageSize = try connection.integer("PRAGMA page_size", "read page size")
                let expected = walHeaderSize + Int64(maxFrame) * (frameHeaderSize + pageSize)
                if fstat(fd, &info) == 0, Int64(info.st_size) < expected {
                    throw .truncatedWhileOpen(path: wal, size: Int64(info.st_size), expected: expected)
                }
            }
        }
    }

    /// Throws when `path` is missing or another file than the one open as `fd`.
    private static func same(_ fd: Int32, path: String, what: String) throws(SQLiteStoreError) {
        var opened = stat()
        var named = stat()
        guard fstat(fd, &opened) == 0 else { return }  // nothing known: SQLite reports its own errors
        guard lstat(path, &named) == 0 else {
            throw .replacedWhileOpen(path: path, problem: "(\(what)) was removed")
        }
        guard named.st_dev == opened.st_dev, named.st_ino == opened.st_ino else {
            throw .replacedWhileOpen(path: path, problem: "(\(what)) was replaced by another file")
        }
    }
}
