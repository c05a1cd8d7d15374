import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the store's directory (0700) and file (0600) with those modes from the first moment.
///
/// The modes are given to `mkdir(2)` and `open(2)` themselves, never applied afterwards, so there is
/// no window in which another user can open the file. SQLite gives its `-wal` and `-shm` files the
/// mode of the database file.
enum SecureFile {
    /// Creates every missing directory on the way to `path`'s parent with mode 0700, then the file
    /// with mode 0600 if it does not exist. An existing directory or file is left as it is.
    static func prepare(path: String) throws(SQLiteStoreError) {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty { try makeDirectories(parent) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw .cannotCreate(path: path, errno: errno)
        }
    }

    private static func makeDirectories(_ directory: String) throws(SQLiteStoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue {
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != directory { try makeDirectories(parent) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .cannotCreate(path: directory, errno: errno)
        }
    }
}
