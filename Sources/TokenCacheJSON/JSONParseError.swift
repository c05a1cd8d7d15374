/// Why a JSON document could not be parsed, and where.
///
/// The message names the position and the rule broken, never the text around it: payloads hold
/// tokens.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rule the input broke.
    public enum Reason: Sendable, Hashable {
        /// No value at all (empty or only whitespace).
        case empty
        /// The input stops inside a value: truncated.
        case unexpectedEnd
        /// A character that cannot stand here; `expected` says what could.
        case unexpectedCharacter(expected: String)
        /// A number that breaks the JSON grammar (`-`, `1.`, `1e`).
        case invalidNumber
        /// A backslash followed by a character JSON does not define.
        case invalidEscape
        /// `\u` not followed by four hex digits.
        case invalidUnicodeEscape
        /// A `\u` escape of a UTF-16 surrogate that is not half of a high-low pair.
        case unpairedSurrogate
        /// A raw control character (below U+0020) inside a string.
        case controlCharacterInString
        /// Bytes that are not UTF-8 inside a string.
        case invalidUTF8
        /// More content after the complete value.
        case trailingContent
        /// Arrays and objects nested deeper than `limit`.
        case tooDeep(limit: Int)
        /// More than `limit` values in the document (each costs far more memory than its bytes).
        case tooManyValues(limit: Int)
    }

    /// The rule broken.
    public let reason: Reason
    /// Zero-based byte offset into the input (after any byte-order mark).
    public let offset: Int
    /// One-based line number.
    public let line: Int
    /// One-based column, counted in bytes.
    public let column: Int

    /// Creates an error at a position.
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
        case .unpairedSurrogate: "a \\u escape of an unpaired UTF-16 surrogate in a string"
        case .controlCharacterInString: "unescaped control character in a string"
        case .invalidUTF8: "invalid UTF-8"
        case .trailingContent: "unexpected content after the JSON value"
        case .tooDeep(let limit): "nesting deeper than \(limit) levels"
        case .tooManyValues(let limit): "more than \(limit) values in one document"
        }
        return "\(what) at line \(line), column \(column) (byte \(offset))"
    }
}
