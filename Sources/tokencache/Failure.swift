import ArgumentParser
import CacheStore
import Foundation
import TokenCacheSchema

/// The exit statuses the CLI documents (sysexits where one fits).
enum Status {
    static let notFound: Int32 = 1
    static let usage: Int32 = 2
    static let dataError: Int32 = 65
    static let ioError: Int32 = 74
}

/// Runs `body`; on an error prints it to stderr as one line and exits with the status that fits.
func exitOnFailure<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        printError(describe(error))
        throw ExitCode(status(for: error))
    }
}

/// Runs `body`, which reads the command line and the environment (the store specification, the
/// access groups); whatever it rejects is a usage error, whatever its category.
func resolvingArguments<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        printError(describe(error))
        throw ExitCode(Status.usage)
    }
}

/// The exit status of a failure: it follows from the error's category alone.
func status(for error: any Error) -> Int32 {
    status(for: ErrorCategory(of: error))
}

func status(for category: ErrorCategory) -> Int32 {
    switch category {
    case .notFound: Status.notFound
    case .badInput, .damaged: Status.dataError
    case .unavailable, .permission, .conflict, .internal: Status.ioError
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("tokencache: \(message)\n".utf8))
}

func printOutput(_ data: Data) {
    FileHandle.standardOutput.write(data)
}

/// Prints a JSON value, pretty-printed with sorted keys, and a newline.
func printJSON(_ value: JSONValue) {
    printOutput(value.serialized(sortingKeys: true) + Data("\n".utf8))
}
