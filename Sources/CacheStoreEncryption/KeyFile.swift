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

/// Data keys kept in a private file beside the store (`<store>.key`), for machines where no Secret
/// Service runs.
///
/// The file is JSON — `{"format": "tokencache-data-keys", "version": 1, "keys": {GROUP: BASE64}}` —
/// created with mode 0600 by `open(2)` itself and rewritten by writing a new 0600 file and renaming
/// it over the old one, so a crash leaves the old file or the new one, never half of either. A file
/// that group or others may read is refused rather than used.
///
/// What it protects: a store copied without its key file (a backup, a synced or shared folder, a
/// disk image) reveals no token. What it does not: anyone who can read the user's files — the user's
/// own processes, root, an attacker running as the user — reads the key file as easily as the store.
///
/// Writers are serialised by the store's write transaction (the SQLite backend creates keys inside
/// `BEGIN IMMEDIATE`), so two processes never rewrite the file at once.
public struct KeyFile: DataKeySource {
    public let path: String
    /// Called once, with a sentence for the user, when this process creates the file.
    private let notice: (@Sendable (String) -> Void)?

    public init(path: String, notice: (@Sendable (String) -> Void)? = nil) {
        self.path = path
        self.notice = notice
    }

    public var kind: KeySourceKind { .file }
    public var description: String { "key file \(path)" }

    /// Whether the file exists.
    public var exists: Bool { access(path, F_OK) == 0 }

    public func existingKey(for accessGroup: String, id: Data?) throws -> DataKey? {
        guard let keys = try read() else { return nil }
        guard let text = keys[accessGroup] else { return nil }
        let key = try DataKey(base64: text)
        if let id, key.id != id { return nil }
        return key
    }

    public func createKey(for accessGroup: String) throws -> DataKey {
        // Other processes may create or extend the file at the same moment: a new file is published
        // with link(2) (EEXIST: read theirs and start over); an existing one is extended under an
        // exclusive lock on it, so that no two read-modify-replace cycles interleave.
        for _ in 0..<8 {
            guard let existing = try read() else {
                let key = DataKey.generate()
                guard try replace([accessGroup: key.exportBase64()], isNew: true) else { continue }
                notice?(Self.notice(path: path))
                return key
            }
            if let text = existing[accessGroup] { return try DataKey(base64: text) }
            if let key = try whileLocked({ () throws -> DataKey in
                guard var keys = try read() else { throw EncryptionError.keyFile(path: path, reason: "it was removed while a key was being added") }
                if let text = keys[accessGroup] { return try DataKey(base64: text) }
                let key = DataKey.generate()
                keys[accessGroup] = key.exportBase64()
                _ = try replace(keys, isNew: false)
                return key
            }) {
                return key
            }
        }
        throw EncryptionError.keyFile(path: path, reason: "other processes kept replacing it while a key was being added; try again")
    }

    /// Runs `body` holding an exclusive `flock(2)` on the file; nil when the file was replaced
    /// between opening and locking (the caller starts over).
    private func whileLocked<T>(_ body: () throws -> T) throws -> T? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw EncryptionError.keyFile(path: path, reason: "cannot open it: \(systemErrorText(errno))")
        }
        defer { close(fd) }  // releases the lock
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw EncryptionError.keyFile(path: path, reason: "cannot lock it: \(systemErrorText(errno))") }
        }
        var locked = stat()
        var current = stat()
        guard fstat(fd, &locked) == 0, stat(path, &current) == 0,
            locked.st_ino == current.st_ino, locked.st_dev == current.st_dev
        else { return nil }
        return try body()
    }

    public static func notice(path: String) -> String {
        "no Secret Service is reachable, so tokencache created the data key that encrypts your tokens in \(path) "
            + "(mode 0600). It keeps tokens unreadable to anyone who gets the store without this file (a backup, "
            + "a synced folder), but not from programs running as you or root, who can read both. Keep it "
            + "beside the store and private; deleting it makes the stored tokens unreadable. Set "
            + "TOKENCACHE_KEY=secret-service to require the keyring instead."
    }

    // MARK: - File

    private struct Document: Codable {
        var format: String
        var version: Int
        var keys: [String: String]
    }

    /// The keys by access group, or `nil` when the file does not exist.
    func read() throws(EncryptionError) -> [String: String]? {
        // Opened without following a symbolic link and checked on the descriptor it is read from,
        // so the file checked is the file read.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP {
                throw .keyFile(path: path, reason: "it is a symbolic link, so someone else could have planted it; "
                    + "move it away (the key it points to must be a private file here)")
            }
            throw .keyFile(path: path, reason: systemErrorText(code))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .keyFile(path: path, reason: systemErrorText(errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .keyFile(path: path, reason: "it is not a regular file")
        }
        guard info.st_uid == geteuid() else {
            throw .keyFile(path: path, reason: "it belongs to another user (uid \(info.st_uid)); it must be yours")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw .keyFile(path: path, reason: "its mode is \(String(info.st_mode & 0o777, radix: 8)), so other users may "
                + "read or change the key; make it private with `chmod 600 \(path)` (and consider the key exposed)")
        }
        guard info.st_size <= 1 << 20, let contents = Self.readAll(fd, size: Int(info.st_size)) else {
            throw .keyFile(path: path, reason: "it cannot be read")
        }
        guard let document = try? JSONDecoder().decode(Document.self, from: contents),
            document.format == "tokencache-data-keys"
        else {
            throw .keyFile(path: path, reason: "it is not a tokencache key file (it was left unchanged)")
        }
        guard document.version == 1 else {
            throw .keyFile(path: path, reason: "it has version \(document.version); upgrade tokencache to read it")
        }
        return document.keys
    }

    /// Reads the whole of `fd` (a regular file of `size` bytes, which may have grown meanwhile).
    private static func readAll(_ fd: Int32, size: Int) -> Data? {
        var contents = Data(count: max(size, 0) + 1)
        var total = 0
        while true {
            if total == contents.count {
                guard contents.count < 1 << 20 else { return nil }
                contents.count *= 2
            }
            let count = contents.withUnsafeMutableBytes { readBytes(fd, $0.baseAddress! + total, $0.count - total) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            total += count
        }
        contents.count = total
        return contents
    }

    /// Writes `keys` to the file; returns false, writing nothing, when `isNew` and another process
    /// created the file meanwhile.
    private func replace(_ keys: [String: String], isNew: Bool) throws(EncryptionError) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var contents = (try? encoder.encode(Document(format: "tokencache-data-keys", version: 1, keys: keys))) ?? Data()
        defer { contents.resetBytes(in: 0..<contents.count) }
        let temporary = PrivateFiles.temporaryName(beside: path, tag: "new")
        do {
            try PrivateFiles.create(temporary, containing: contents)
        } catch {
            throw .keyFile(path: path, reason: "cannot \(error.operation) it: \(error.reason)")
        }
        if isNew {
            // link(2) fails if another process created the file meanwhile: never overwrite someone's key.
            let linked = link(temporary, path)
            let code = errno
            unlink(temporary)
            if linked != 0 && code == EEXIST { return false }
            guard linked == 0 else {
                throw .keyFile(path: path, reason: "cannot create it: \(systemErrorText(code))")
            }
        } else if rename(temporary, path) != 0 {
            let reason = systemErrorText(errno)
            unlink(temporary)
            throw .keyFile(path: path, reason: "cannot replace it: \(reason)")
        }
        return true
    }
}

/// `read(2)`, by a name the key file's own `read()` does not shadow.
private func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
