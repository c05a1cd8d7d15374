import Foundation

/// 4,096 bytes that no format this project reads would take for its own (no SQLite header, no
/// JSON, no archive), the same every run.
public let noiseBytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

/// Writes ``noiseBytes`` to a new file at `path`, private (0600) whatever the umask: the runner's
/// may be permissive, and a file others may write is refused before it is read, which would test
/// something else. Returns whether the file was created.
public func writeNoiseFile(atPath path: String) -> Bool {
    FileManager.default.createFile(atPath: path, contents: noiseBytes, attributes: [.posixPermissions: 0o600])
}
