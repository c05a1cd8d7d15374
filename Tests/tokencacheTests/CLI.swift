import Foundation
import TestSupport

/// Runs the built `tokencache` binary in a private HOME, as a user would.
struct CLI {
    let home: TemporaryDirectory

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] {
        var variables = ["HOME": home.url.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        if let tmp = ProcessInfo.processInfo.environment["TMPDIR"] { variables["TMPDIR"] = tmp }
        return variables
    }

    struct Result {
        let status: Int32
        let output: String
        let errors: String
    }

    func run(_ arguments: String..., environment extra: [String: String] = [:], input: Data? = nil) throws -> Result {
        try run(arguments: arguments, environment: extra, input: input)
    }

    func run(arguments: [String], environment extra: [String: String] = [:], input: Data? = nil) throws -> Result {
        let process = try ChildProcess("tokencache", arguments, environment: environment.merging(extra) { $1 }, input: input)
        let (status, errors) = process.wait()
        return Result(status: status, output: process.output, errors: errors)
    }

    var defaultStorePath: String { home.path(".local/share/tokencache/cache.sqlite") }

    /// Runs `/bin/sh -c script` with the CLI's environment and a key file, `script` made from the
    /// built binary's path: for pipes and redirections `run` cannot express. Returns its standard
    /// error; its standard output is discarded.
    func shell(_ script: (_ binary: String) -> String) throws -> String {
        let binary = ChildProcess.productsDirectory.appendingPathComponent("tokencache").path
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", script(binary)]
        shell.environment = environment.merging(["TOKENCACHE_KEY": "file"]) { $1 }
        let errors = Pipe()
        shell.standardError = errors
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        return text
    }
}
