import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and writes files that hold tokens.
public enum PrivateFile {
    /// Writes `data` to `path` atomically: into a new file created with mode 0600 beside it, flushed
    /// to disk, then renamed over `path`. Readers see the old content or the new, never a mix; the
    /// file is never readable by others, not even for a moment.
    public static func write(_ data: Data, to path: String) throws(InterchangeError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: lastError()) }
        var failure: String?
        do {
            try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: data)
        } catch {
            failure = (error as NSError).localizedDescription
        }
        if failure == nil, fsync(descriptor) != 0 { failure = lastError() }
        if close(descriptor) != 0, failure == nil { failure = lastError() }
        if failure == nil, rename(temporary, path) != 0 { failure = lastError() }
        if let failure {
            unlink(temporary)
            throw .cannotWrite(path: path, reason: failure)
        }
    }

    /// The content of `path`, refusing files over `limit` bytes; `nil` when the file does not exist.
    public static func read(_ path: String, limit: Int) throws(InterchangeError) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if errno == ENOENT { return nil }
            throw .cannotRead(path: path, reason: lastError())
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else {
                throw InterchangeError.tooLarge(source: path, size: data.count, limit: limit)
            }
            return data
        } catch let error as InterchangeError {
            throw error
        } catch {
            throw .cannotRead(path: path, reason: (error as NSError).localizedDescription)
        }
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
