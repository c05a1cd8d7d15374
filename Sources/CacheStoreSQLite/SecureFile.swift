import CSQLite
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
import PrivateFiles

/// Creates the store's directory (0700) and files (0600) with those modes from the first moment.
///
/// The modes are given to `mkdir(2)` and `open(2)` themselves, never applied afterwards, so there is
/// no window in which another user can open the file. SQLite gives its `-wal` and `-shm` files the
/// mode of the database file.
enum SecureFile {
    /// Creates every missing directory on the way to `path`'s parent with mode 0700. An existing
    /// directory is left as it is.
    static func prepareDirectory(for path: String) throws(SQLiteStoreError) {
        let parent = PathComponents.directory(of: path)
        guard !parent.isEmpty else { return }
        do {
            try PrivateFiles.makeDirectories(parent)
        } catch {
            throw .cannotCreate(path: error.path, errno: error.code)
        }
    }

    /// Whether something (a file, or anything else) exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Creates a new, empty file beside `path` (mode 0600, a name no other process uses) and returns
    /// its path. The name starts with `.NAME.creating-`, so leftovers are recognisable.
    static func createTemporary(beside path: String) throws(SQLiteStoreError) -> String {
        for _ in 0..<16 {
            let candidate = PrivateFiles.temporaryName(beside: path, tag: "creating")
            do {
                try PrivateFiles.create(candidate, containing: Data())
                return candidate
            } catch where error.code == EEXIST {
                continue
            } catch {
                throw .cannotCreate(path: candidate, errno: error.code)
            }
        }
        throw .cannotCreate(path: path, errno: EEXIST)
    }

    /// Makes the complete file at `temporary` appear at `path` in one step, unless something is
    /// there already. Returns whether it was published (false: another process won; nothing of
    /// theirs was touched). `temporary` is removed either way.
    static func publish(_ temporary: String, at path: String) throws(SQLiteStoreError) -> Bool {
        defer { unlink(temporary) }
        // link(2) is atomic and never replaces an existing name; it works on every local file
        // system and on NFS. Where hard links are not supported, renameat2(RENAME_NOREPLACE) is.
        if link(temporary, path) == 0 { return true }
        let linkError = errno
        if linkError == EEXIST { return false }
        if linkError == EPERM || linkError == EOPNOTSUPP || linkError == EMLINK || linkError == ENOSYS {
            if tc_rename_noreplace(temporary, path) == 0 { return true }
            if errno == EEXIST { return false }
        }
        throw .cannotCreate(path: path, errno: linkError)
    }

    /// Removes creation leftovers of `path` (`.NAME.creating-*`) older than `age` seconds: files a
    /// creator killed mid-creation left behind. Younger ones may belong to a creator still at work.
    static func removeStaleTemporaries(of path: String, olderThan age: TimeInterval = 600) {
        let directory = PathComponents.directory(of: path)
        let prefix = "." + PathComponents.lastComponent(of: path) + ".creating-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else {
            return
        }
        let now = Date().timeIntervalSince1970
        for name in names where name.hasPrefix(prefix) {
            let candidate = (directory.isEmpty ? "" : directory + "/") + name
            var info = stat()
            guard lstat(candidate, &info) == 0, info.st_uid == geteuid(),
                let modified = (try? FileManager.default.attributesOfItem(atPath: candidate))?[.modificationDate] as? Date
            else { continue }
            if now - modified.timeIntervalSince1970 > age {
                for suffix in ["", "-wal", "-shm", "-journal"] { unlink(candidate + suffix) }
            }
        }
    }
}
