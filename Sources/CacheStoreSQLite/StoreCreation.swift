#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates a store file so that no other process ever sees it incomplete.
///
/// The file is built under a private temporary name beside the store (schema, `application_id`,
/// `user_version`, write-ahead logging), closed — which checkpoints and removes its log — and then
/// published under the store's name with `link(2)`, which fails if the name exists. Of several
/// processes creating the same store at once, exactly one publishes; the others discard their copy
/// and open the published one. A creator killed midway leaves only its temporary file, which a later
/// creation removes once it is old.
enum StoreCreation {
    /// Creates the store at `path` unless something exists there. Returns whether this call created it.
    @discardableResult
    static func createIfMissing(path: String, busyTimeoutMilliseconds: Int32) throws -> Bool {
        if SecureFile.exists(path) { return false }
        SecureFile.removeStaleTemporaries(of: path)
        let temporary = try SecureFile.createTemporary(beside: path)
        do {
            // Scoped, so the connection is closed (and its log removed) before publishing.
            // The schema is written in rollback-journal mode, straight into the file; switching to WAL
            // last only marks the header, so the closed file holds everything without its log.
            let connection = try SQLiteConnection(path: temporary, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            try StoreSchema.migrate(connection)
            let mode = try connection.string("PRAGMA journal_mode = WAL", "enable WAL")
            guard mode.lowercased() == "wal" else { throw StoreSchema.walRefused(mode, path: path) }
            _ = try connection.integer("PRAGMA wal_checkpoint(TRUNCATE)", "checkpoint new store")
        } catch {
            unlink(temporary)
            for suffix in ["-wal", "-shm"] { unlink(temporary + suffix) }
            throw error
        }
        defer { for suffix in ["-wal", "-shm"] { unlink(temporary + suffix) } }
        var log = stat()
        if lstat(temporary + "-wal", &log) == 0 && log.st_size > 0 {
            unlink(temporary)
            throw SQLiteStoreError.cannotCreate(path: path, errno: EIO)
        }
        return try SecureFile.publish(temporary, at: path)
    }
}
