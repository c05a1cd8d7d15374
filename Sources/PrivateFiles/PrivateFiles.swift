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

/// Creating files and directories that hold tokens or keys: files with mode 0600 and directories
/// with mode 0700 from the first moment.
///
/// The modes are given to `open(2)` and `mkdir(2)` themselves, never applied afterwards, so there is
/// no window in which another user can open what was created. The SQLite store's files, the key
/// file and exported caches are all made this way.
public enum PrivateFiles {
    /// Creates every missing directory on the way to `directory` with mode 0700. Existing
    /// directories are left as they are.
    public static func makeDirectories(_ directory: String) throws(PrivateFileError) {
        var isDirectory = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory {
            return
        }
        let parent = PathComponents.directory(of: directory)
        if !parent.isEmpty && parent != directory { try makeDirectories(parent) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw PrivateFileError(path: directory, operation: "create", code: errno)
        }
    }

    /// A name no other process uses, beside `path`: `.NAME.TAG-PID-RANDOM` in the same directory,
    /// so that a rename or link to `path` stays on one file system and leftovers are recognisable.
    public static func temporaryName(beside path: String, tag: String) -> String {
        let directory = PathComponents.directory(of: path)
        let name = PathComponents.lastComponent(of: path)
        return (directory.isEmpty ? "" : directory + "/")
            + ".\(name).\(tag)-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
    }

    /// Creates the new file `path` (mode 0600; it must not exist, and a symbolic link there is not
    /// followed), writes `data` into it and flushes it to disk. On failure nothing is left behind.
    ///
    /// - Throws: ``PrivateFileError``; its ``PrivateFileError/code`` is `EEXIST` when something is
    ///   at `path` already.
    public static func create(_ path: String, containing data: Data) throws(PrivateFileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw PrivateFileError(path: path, operation: "create", code: errno) }
        var failure: PrivateFileError?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = PrivateFileError(path: path, operation: "write", code: errno)
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = PrivateFileError(path: path, operation: "flush", code: errno) }
        if close(fd) != 0, failure == nil { failure = PrivateFileError(path: path, operation: "write", code: errno) }
        if let failure {
            unlink(path)
            throw failure
        }
    }
}

/// Why a private file or directory could not be made: what was being done, where, and `errno`.
public struct PrivateFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    /// `create`, `write` or `flush`.
    public let operation: String
    /// The `errno` of the failing call.
    public let code: Int32

    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    /// The system's words for ``code``.
    public var reason: String { systemErrorText(code) }

    public var description: String { "cannot \(operation) \(path): \(reason)" }
}

/// The system's words for an `errno` value (`strerror`), for messages: the one place the modules
/// that work with files turn a code into text.
public func systemErrorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}
