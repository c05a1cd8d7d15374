#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CacheStore

/// Why a `keychain-items` document could not be read. Never includes item data.
public enum KeychainItemsFormatError: Error, Sendable, CustomStringConvertible, Equatable {
    case notJSON(source: String)
    case notAnArray(source: String)
    /// Element `index` (0-based) has a missing or wrong `field` (`nil`: the element itself).
    case invalidField(source: String, index: Int, field: String?, expected: String)

    init(_ error: DecodingError, source: String) {
        let path: [any CodingKey]
        let expected: String
        switch error {
        case .typeMismatch(let type, let context):
            path = context.codingPath
            expected = type == String.self ? "a string" : type == Double.self ? "an integer from 0 to 4294967295 or null" : "of another type (\(type))"
        case .valueNotFound(_, let context):
            path = context.codingPath
            expected = "present and not null"
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
            expected = "present"
        case .dataCorrupted(let context):
            path = context.codingPath
            expected = context.debugDescription.count < 60 ? context.debugDescription : "valid"
        @unknown default:
            self = .notJSON(source: source)
            return
        }
        guard let index = path.first?.intValue else {
            self = .notAnArray(source: source)
            return
        }
        let field = path.dropFirst().map(\.stringValue).joined(separator: ".")
        self = .invalidField(source: source, index: index, field: field.isEmpty ? nil : field, expected: expected)
    }

    public var description: String {
        switch self {
        case .notJSON(let source):
            return "\(source): not valid JSON"
        case .notAnArray(let source):
            return "\(source): a keychain-items document is a JSON array of items"
        case .invalidField(let source, let index, let field, let expected):
            let place = field.map { "field '\($0)'" } ?? "the element"
            return "\(source): item \(index): \(place) must be \(expected)"
        }
    }
}

extension KeychainItemsFormatError: CategorizedError {
    /// A keychain-items document handed in that cannot be read.
    public var category: ErrorCategory { .badInput }
}
