import Foundation

/// Starts `store-worker` (built beside the test binary) as a separate process.
enum Worker {
    static var executable: URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the test binary is `<products>/tokencachePackageTests.xctest`; elsewhere a bundle.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("store-worker").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("store-worker")
    }

    /// A started worker whose stdout lines are collected as they arrive.
    final class Running: @unchecked Sendable {
        let process = Process()
        private let lock = NSLock()
        private var buffer = Data()
        private let errors = Pipe()

        init(_ arguments: [String]) throws {
            process.executableURL = Worker.executable
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = errors
            output.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let chunk = handle.availableData
                guard let self, !chunk.isEmpty else { return }
                self.lock.withLock { self.buffer.append(chunk) }
            }
            try process.run()
        }

        /// Complete lines received so far.
        var lines: [String] {
            lock.withLock {
                String(decoding: buffer, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            }
        }

        /// Waits for exit and returns (status, stderr).
        func wait() -> (Int32, String) {
            process.waitUntilExit()
            Thread.sleep(forTimeInterval: 0.05)  // let the last stdout chunk arrive
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (process.terminationStatus, message)
        }

        func kill() {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// A fresh directory under the system temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}
