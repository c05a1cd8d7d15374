import Foundation

/// A child process running this executable.
struct Child {
    let process: Process

    static func spawn(_ arguments: [String]) throws -> Child {
        let process = Process()
        guard let executable = Bundle.main.executablePath else { throw LoadError.worker("cannot find this executable's path") }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        return Child(process: process)
    }

    func wait(_ name: String) throws {
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw LoadError.worker("\(name) exited with status \(process.terminationStatus)") }
    }
}
