#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value, parsed and written by this module so that payloads round-trip exactly.
///
/// Objects keep their members in input order (``JSONObject``); numbers keep their original text
/// (``JSONNumber``), so `1700000000`, `1.50` and `-62135596800` are written back unchanged.
public enum JSONValue: Sendable, Hashable {
    /// An object, members in order.
    case object(JSONObject)
    /// An array.
    case array([JSONValue])
    /// A string.
    case string(String)
    /// A number, kept as its text.
    case number(JSONNumber)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// Parses one JSON document.
    ///
    /// Accepts a leading UTF-8 byte-order mark, every standard escape (including Apple's `\/`) and,
    /// unless `allowTrailingCommas` is `false`, a comma before a closing `]` or `}` (MSAL.NET's own
    /// files contain them). A `\u` escape of a UTF-16 surrogate outside a high-low pair is an error
    /// (as U+FFFD, two different ids would read as one).
    ///
    /// - Throws: ``JSONParseError`` with the byte offset, line and column of the problem; the error
    ///   never quotes the input.
    public static func parse(_ data: Data, allowTrailingCommas: Bool = true) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(data, allowTrailingCommas: allowTrailingCommas)
    }

    /// Parses one JSON document from text; see ``parse(_:allowTrailingCommas:)``.
    public static func parse(_ text: String, allowTrailingCommas: Bool = true) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(Data(text.utf8), allowTrailingCommas: allowTrailingCommas)
    }

    /// Compact UTF-8 JSON: no whitespace, non-ASCII written raw, `/` written unescaped.
    ///
    /// - Parameter sortingKeys: write object members sorted by the UTF-8 bytes of their keys (at every
    ///   depth) instead of in their stored order.
    public func serialized(sortingKeys: Bool = false) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(JSONSerializer.estimatedSize(of: self))
        JSONSerializer.write(self, to: &out, sortingKeys: sortingKeys)
        return Data(out)
    }

    /// ``serialized(sortingKeys:)`` as a `String`.
    public func serializedString(sortingKeys: Bool = false) -> String {
        var out = [UInt8]()
        JSONSerializer.write(self, to: &out, sortingKeys: sortingKeys)
        return String(decoding: out, as: UTF8.self)
    }

    /// The kind of value, for error messages: `object`, `array`, `string`, `number`, `boolean`, `null`.
    public var kindName: String {
        switch self {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .number: "number"
        case .bool: "boolean"
        case .null: "null"
        }
    }

    /// ``kindName`` with its article, for messages: `an object`, `a string`, …
    package var kindWithArticle: String {
        switch self {
        case .object, .array: "an \(kindName)"
        default: "a \(kindName)"
        }
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }
}

/// Literals, for building payloads in code: `["client_id": "cid", "n": 1, "x": nil]`.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
