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

/// Reads and writes files that hold tokens.
public enum PrivateFile {
    /// Writes `data` to `path` atomically: into a new file created with mode 0600 beside it, flushed
    /// to disk, then renamed over `path`. Readers see the old content or the new, never a mix; the
    /// file is never readable by others, not even for a moment.
    public static func write(_ data: Data, to path: String) throws(InterchangeError) {
        let temporary = PrivateFiles.temporaryName(beside: URL(fileURLWithPath: path).path, tag: "tmp")
        do {
            try PrivateFiles.create(temporary, containing: data)
        } catch {
            throw .cannotWrite(path: path, reason: error.reason)
        }
        if rename(temporary, path) != 0 {
            let reason = lastError()
            unlink(temporary)
            throw .cannotWrite(path: path, reason: reason)
        }
    }

    /// The content of `path`, refusing files over `limit` bytes; `nil` when the file does not exist.
    public static func read(_ path: String, limit: Int) throws(InterchangeError) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .cannotRead(path: path, reason: lastError())
        }
        defer { close(fd) }
        return try BoundedInput.readAll(fd, source: path, limit: limit)
    }

    private static func lastError() -> String {
        systemErrorText(errno)
    }
}
