#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PrivateFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PrivateFiles

/// Who owns a store's file and who may write it, read from the opened descriptor, and whether that
/// makes it unsafe to use (in the manner of OpenSSH's `StrictModes`).
///
/// A file is unsafe when it is not owned by the effective user, is writable by group or others, is
/// not a regular file, or is a symbolic link. Its directory is unsafe when another user (not root)
/// owns it, or anyone may rename files in it (world-writable without the sticky bit): then the file
/// checked could be swapped for another before SQLite opens it by name. Before SQLite opens a store,
/// its files are looked at with `lstat(2)`; once it has, the database and its write-ahead log are
/// checked again with `fstat(2)` on SQLite's own descriptors, so the files checked are the files used.
public struct FileFacts: Sendable, Hashable {
    /// The path looked at.
    public let path: String
    /// False when nothing is there (a `-wal` or `-shm` file between uses, a key kept elsewhere).
    public let exists: Bool
    /// Owner user id and permission bits (`st_mode & 0o7777`), when it exists.
    public let owner: UInt32?
    public let mode: UInt32?
    /// Why it must not be used, or nil.
    public let problem: String?
    /// Whether these are the facts of the store's directory.
    public var isDirectory = false

    /// The facts of the file at `path`, from `lstat(2)` (a final symbolic link is itself looked
    /// at). Opens nothing: opening and closing a store file would drop this process's POSIX locks
    /// on it, SQLite's included.
    public static func entry(_ path: String) -> FileFacts {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return FileFacts(path: path, exists: false, owner: nil, mode: nil, problem: nil) }
            return FileFacts(path: path, exists: true, owner: nil, mode: nil, problem: "it cannot be examined (\(systemErrorText(code)))")
        }
        return facts(info, path: path)
    }

    /// The facts of the file SQLite opened as `fd` (its own descriptor, see
    /// `SQLiteConnection.descriptor`), checked to be the file at `path`.
    static func opened(_ fd: Int32, path: String) -> FileFacts {
        var opened = stat()
        guard fstat(fd, &opened) == 0 else {
            return FileFacts(path: path, exists: true, owner: nil, mode: nil, problem: "it cannot be examined (\(systemErrorText(errno)))")
        }
        var named = stat()
        guard lstat(path, &named) == 0, named.st_dev == opened.st_dev, named.st_ino == opened.st_ino else {
            return FileFacts(path: path, exists: true, owner: UInt32(opened.st_uid), mode: UInt32(opened.st_mode) & 0o7777,
                             problem: "it was replaced by another file while it was being opened")
        }
        return facts(opened, path: path)
    }

    private static func facts(_ info: stat, path: String) -> FileFacts {
        let mode = UInt32(info.st_mode) & 0o7777
        let type = UInt32(info.st_mode) & UInt32(S_IFMT)
        let problem: String?
        if type == UInt32(S_IFLNK) {
            problem = "it is a symbolic link"
        } else if type != UInt32(S_IFREG) {
            problem = "it is not a regular file"
        } else if info.st_uid != geteuid() {
            problem = "it belongs to user id \(info.st_uid), not to you (user id \(geteuid()))"
        } else if mode & 0o022 != 0 {
            problem = "its mode \(String(mode, radix: 8)) lets other users write it"
        } else {
            problem = nil
        }
        return FileFacts(path: path, exists: true, owner: UInt32(info.st_uid), mode: mode, problem: problem)
    }

    /// The facts of the directory holding `path`.
    public static func directory(holding path: String) -> FileFacts {
        let parent = PathComponents.directory(of: path)
        let directory = parent.isEmpty ? "." : parent
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            return FileFacts(path: directory, exists: false, owner: nil, mode: nil, problem: nil, isDirectory: true)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            return FileFacts(path: directory, exists: true, owner: nil, mode: nil, problem: nil, isDirectory: true)
        }
        let mode = UInt32(info.st_mode) & 0o7777
        let problem: String?
        if info.st_uid != geteuid() && info.st_uid != 0 {
            problem = "it belongs to user id \(info.st_uid), who can replace any file in it"
        } else if mode & 0o002 != 0 && mode & UInt32(S_ISVTX) == 0 {
            problem = "its mode \(String(mode, radix: 8)) lets any user replace files in it (no sticky bit)"
        } else {
            problem = nil
        }
        return FileFacts(path: directory, exists: true, owner: UInt32(info.st_uid), mode: mode, problem: problem, isDirectory: true)
    }

    /// The facts of a store's files: its directory, the database, `-wal` and `-shm`.
    public static func store(at path: String) -> [FileFacts] {
        [directory(holding: path), entry(path), entry(path + "-wal"), entry(path + "-shm")]
    }

    /// Throws ``SQLiteStoreError/unsafeFile(path:problem:fix:)`` for the first unsafe one of `facts`.
    static func require(_ facts: [FileFacts]) throws(SQLiteStoreError) {
        for fact in facts {
            guard let problem = fact.problem else { continue }
            throw .unsafeFile(path: fact.path, problem: problem, fix: fact.fix)
        }
    }

    /// How to make it safe.
    var fix: String {
        if isDirectory {
            return "keep the store in a directory only you (or root) can write, or one with the sticky bit such as /tmp"
        }
        if owner == geteuid(), problem?.hasPrefix("its mode") == true {
            return "if you trust its content, make it private with `chmod go-rwx \(path)`; otherwise move it away and let a new one be created"
        }
        return "move it away and let a new one be created, or choose another path (if it was yours, find out who changed it)"
    }
}

extension SQLiteConnection {
    /// The facts of the files this connection has open, from its own descriptors where SQLite has
    /// them open (the database, the write-ahead log) and from the path for the shared-memory index.
    func openedFileFacts() -> [FileFacts] {
        var facts: [FileFacts] = []
        if let fd = descriptor(journal: false) { facts.append(.opened(fd, path: path)) } else { facts.append(.entry(path)) }
        if let fd = descriptor(journal: true) { facts.append(.opened(fd, path: path + "-wal")) } else { facts.append(.entry(path + "-wal")) }
        facts.append(.entry(path + "-shm"))
        return facts
    }
}
