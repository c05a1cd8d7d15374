import Foundation

/// A program of this package (built beside the test binary) started as a separate process, with its
/// stdout lines collected as they arrive.
public final class ChildProcess: @unchecked Sendable {
    /// The directory holding the package's built executables.
    public static var productsDirectory: URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the test binary is `<products>/tokencachePackageTests.xctest`; elsewhere a bundle.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("tokencache").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory
    }

    public let process = Process()
    private let lock = NSLock()
    private var buffer = Data()
    private let errors = Pipe()
    private let outputPipe = Pipe()
    /// Signalled by the reader thread when stdout reaches end of file.
    private let outputDone = DispatchSemaphore(value: 0)

    /// Starts `program` (a product name such as `store-worker`) with `arguments`.
    ///
    /// - Parameter environment: replaces the environment when given.
    public init(_ program: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil) throws {
        process.executableURL = Self.productsDirectory.appendingPathComponent(program)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = outputPipe
        process.standardError = errors
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            pipe.fileHandleForWriting.write(input)
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        // A plain thread blocking on read, rather than a readability handler: handlers run on
        // dispatch sources, whose cancellation races with a late event (a crash seen under TSan).
        let handle = outputPipe.fileHandleForReading
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { buffer.append(chunk) }
            }
            outputDone.signal()
        }
        thread.start()
    }

    /// Everything received on stdout so far.
    public var output: String { lock.withLock { String(decoding: buffer, as: UTF8.self) } }

    /// Complete lines received so far.
    public var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// Waits for exit; returns the status and everything written to stderr.
    @discardableResult
    public func wait() -> (status: Int32, errors: String) {
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        outputDone.wait()  // every byte of stdout has been read
        outputDone.signal()  // so that a second wait() returns too
        return (process.terminationStatus, message)
    }

    /// Kills the process with SIGKILL and reaps it.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// A fresh directory under the system temporary directory, removed by `cleanUp()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // Private whatever the umask (the runner's may be permissive, and two tests set one), and a
        // world-writable directory is (rightly) refused as a store's home.
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// The permission bits of a file or directory.
public func posixMode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
