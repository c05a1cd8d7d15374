import ArgumentParser
import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheDisplay
import TokenCacheInterchange
import TokenCacheJSON

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

/// Prints a message on stderr, every control character of it escaped (see `DisplayText`).
func printError(_ message: String) {
    StandardStream.error.send("tokencache: \(DisplayText.escaped(message, keepingLineBreaks: true))\n")
}

/// Prints human output on stdout. Whole lines: newlines and tabs stay, every other control
/// character, C1 control and bidirectional override is escaped, whatever a value put there.
func printOutput(_ data: Data) {
    StandardStream.output.send(DisplayText.escaped(String(decoding: data, as: UTF8.self), keepingLineBreaks: true))
}

/// Prints a JSON value, pretty-printed with sorted keys, and a newline; terminal-safe and still the
/// same JSON (see `DisplayText.jsonSafe`).
func printJSON(_ value: JSONValue) {
    printJSONText(String(decoding: value.serialized(sortingKeys: true), as: UTF8.self) + "\n")
}

/// Prints serialized JSON, terminal-safe and still the same JSON.
func printJSONText(_ text: String) {
    StandardStream.output.send(DisplayText.jsonSafe(text))
}
