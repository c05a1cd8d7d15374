#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PrivateFiles

/// Why an existing store can be read but not written here, found before it is opened.
///
/// SQLite opens a write-ahead-log database through its `-shm` index, which it creates beside the
/// file: on a read-only file system (or in a directory this user cannot write) a plain open fails
/// with "unable to open database file". Such a store is opened read-only instead:
/// - a log holding commits (`-wal` not empty) is read through its existing `-shm` (`mode=ro`; SQLite
///   then rebuilds the index in private memory), so nothing committed is missed; without a `-shm`
///   the open fails, and the error says to copy the files to writable storage;
/// - with no commits in a log, where no `-shm` index can be made (a read-only file system; a
///   directory this user cannot write, without one), the file is opened `immutable=1`: no locks, no
///   index — and no process can open the store for writing while it stays so (a directory of
///   another user's, which that user may write in, is opened `mode=ro`, which then fails).
public enum ReadOnlyAccess: Sendable, Equatable, CustomStringConvertible {
    /// The file system holding the store is mounted read-only.
    case readOnlyFileSystem(path: String)
    /// The store file is not writable by this user.
    case fileNotWritable(path: String)
    /// The directory is not writable by this user: SQLite cannot create the `-wal` and `-shm` files.
    case directoryNotWritable(directory: String)

    /// How `path` must be opened, or `nil` when it can be written (or does not exist yet).
    static func detect(path: String) -> ReadOnlyAccess? {
        let directory = PathComponents.directory(of: path)
        let folder = directory.isEmpty ? "." : directory
        var info = statvfs()
        if statvfs(folder, &info) == 0, info.f_flag & UInt(ST_RDONLY) != 0 { return .readOnlyFileSystem(path: path) }
        guard SecureFile.exists(path) else { return nil }
        if access(path, W_OK) != 0 { return errno == EROFS ? .readOnlyFileSystem(path: path) : .fileNotWritable(path: path) }
        if access(folder, W_OK) != 0 {
            return errno == EROFS ? .readOnlyFileSystem(path: path) : .directoryNotWritable(directory: folder)
        }
        return nil
    }

    /// The URI SQLite opens the store by (with `SQLITE_OPEN_URI`).
    func uri(for path: String) -> String {
        var log = stat()
        let logHasCommits = lstat(path + "-wal", &log) == 0 && log.st_size > 0
        // Immutable only where no process can open the store for writing: no -shm can be made.
        let indexCannotBeMade: Bool =
            switch self {
            case .readOnlyFileSystem: true
            // A directory of this user's that they made read-only; not one another user (root) writes in.
            case .directoryNotWritable(let directory): !SecureFile.exists(path + "-shm") && Self.owner(of: directory) == geteuid()
            case .fileNotWritable: false
            }
        let immutable = !logHasCommits && indexCannotBeMade
        return "file:" + Self.percentEncoded(path) + (immutable ? "?immutable=1" : "?mode=ro")
    }

    private static func owner(of path: String) -> uid_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_uid : nil
    }

    /// `path` with every byte but unreserved characters and `/` percent-encoded, as a URI path.
    static func percentEncoded(_ path: String) -> String {
        var result = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return result
    }

    public var description: String {
        switch self {
        case .readOnlyFileSystem(let path): "the file system holding \(path) is mounted read-only"
        case .fileNotWritable(let path): "\(path) is not writable by this user"
        case .directoryNotWritable(let directory): "its directory \(directory) is not writable by this user (SQLite keeps the -wal and -shm files there)"
        }
    }

    /// What to do to write to the store.
    public var remedy: String {
        switch self {
        case .readOnlyFileSystem(let path):
            "reads work as they are; to save, remount that file system read-write, or copy \(path) (with its -wal file, if any) "
                + "to writable storage and use the copy"
        case .fileNotWritable(let path): "reads work as they are; to save, make it writable (`chmod u+w \(path)`)"
        case .directoryNotWritable(let directory): "reads work as they are; to save, make the directory writable (`chmod u+w \(directory)`)"
        }
    }
}
