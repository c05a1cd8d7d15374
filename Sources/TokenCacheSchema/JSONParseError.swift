/// Why a JSON document could not be parsed, and where.
///
/// The message names the position and the rule broken, never the text around it: payloads hold
/// tokens.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rule the input broke.
    public enum Reason: Sendable, Hashable {
        case empty
        case unexpectedEnd
        case unexpectedCharacter(expected: String)
        case invalidNumber
        case invalidEscape
        case invalidUnicodeEscape
        case controlCharacterInString
        case invalidUTF8
        case trailingContent
        case tooDeep(limit: Int)
    }

    public let reason: Reason
    /// Zero-based byte offset into the input (after any byte-order mark).
    public let offset: Int
    /// One-based line number.
    public let line: Int
    /// One-based column, counted in bytes.
    public let column: Int

    public init(reason: Reason, offset: Int, line: Int, column: Int) {
        self.reason = reason
        self.offset = offset
        self.line = line
        self.column = column
    }

    public var description: String {
        let what: String = switch reason {
        case .empty: "the document is empty"
        case .unexpectedEnd: "the document ends too early (truncated?)"
        case .unexpectedCharacter(let expected): "unexpected character, expected \(expected)"
        case .invalidNumber: "invalid number"
        case .invalidEscape: "invalid escape sequence in a string"
        case .invalidUnicodeEscape: "invalid \\u escape in a string"
        case .controlCharacterInString: "unescaped control character in a string"
        case .invalidUTF8: "invalid UTF-8"
        case .trailingContent: "unexpected content after the JSON value"
        case .tooDeep(let limit): "nesting deeper than \(limit) levels"
        }
        return "\(what) at line \(line), column \(column) (byte \(offset))"
    }
}
