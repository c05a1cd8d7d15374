import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheDisplay
import TokenCacheJSON
import TokenCacheSchema

/// Why a file could not be imported or exported.
///
/// Every case names the source (a file path, `stdin`) and where in it the problem is: a byte
/// position, a section and entry key, a field. No case carries a secret or any other payload value.
public enum InterchangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The content is not in any format the importer knows (or not in the one asked for).
    case unrecognizedFormat(source: String, expected: String)
    /// The content is not JSON (or not valid JSON at some position).
    case malformedJSON(source: String, JSONParseError)
    /// The document's structure is wrong at `path` (e.g. `AccessToken`, `[2].Value[0]`).
    case invalidStructure(source: String, path: String, reason: String)
    /// An entry breaks the unified schema (a field of the wrong kind).
    case invalidEntry(source: String, path: String, SchemaError)
    /// A keychain-items document is wrong.
    case invalidKeychainItems(KeychainItemsFormatError)
    /// The input is larger than the importer accepts.
    case tooLarge(source: String, size: Int, limit: Int)
    /// A file could not be read.
    case cannotRead(path: String, reason: String)
    /// A file could not be written.
    case cannotWrite(path: String, reason: String)

    /// Whether the problem is the input's content (exit status 65) rather than I/O (74).
    public var isDataError: Bool {
        switch self {
        case .cannotRead, .cannotWrite: false
        default: true
        }
    }

    public var description: String {
        switch self {
        case .unrecognizedFormat(let source, let expected):
            return "\(source): not \(expected)"
        case .malformedJSON(let source, let error):
            return "\(source): not valid JSON: \(error)"
        case .invalidStructure(let source, let path, let reason):
            return "\(source): \(path): \(reason)"
        case .invalidEntry(let source, let path, let error):
            return "\(source): \(path): \(Self.entryMessage(error))"
        case .invalidKeychainItems(let error):
            return error.description
        case .tooLarge(let source, let size, let limit):
            return "\(source): \(size) bytes is more than the \(limit) bytes an import accepts"
        case .cannotRead(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason)"
        }
    }

    /// The schema error without its "payload: " subject (the path already names the entry).
    private static func entryMessage(_ error: SchemaError) -> String {
        switch error {
        case .malformedJSON(let parse, _): "not valid JSON: \(parse)"
        case .notAnObject(let found, _): "must be a JSON object, found \(found)"
        case .missingField(let field, _): "required field '\(field)' is missing or null"
        case .invalidField(let field, let reason, _): "field '\(field)' \(reason)"
        case .wrongItemType(let expected, _): "expected \(expected)"
        case .malformedArchive(let archive, _): "not a readable ADAL archive: \(archive)"
        }
    }
}

/// Quotes an entry key for messages, escaped and cut to 160 bytes, so that a hostile key can neither
/// drive the terminal nor flood it.
func quotedKey(_ key: String) -> String {
    DisplayText.quoted(key)
}

extension InterchangeError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .cannotRead, .cannotWrite: .unavailable
        case .unrecognizedFormat, .malformedJSON, .invalidStructure, .invalidEntry, .invalidKeychainItems, .tooLarge:
            .badInput
        }
    }
}
