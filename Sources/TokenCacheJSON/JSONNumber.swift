/// A JSON number kept as the text it was written with, so it is written back byte for byte.
///
/// Equality compares the text: `1` and `1.0` are different numbers here.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number's JSON text, e.g. `-62135596800` or `1.5e3`.
    public let text: String

    /// Wraps `text` when it is a valid JSON number (RFC 8259 grammar); `nil` otherwise.
    public init?(text: String) {
        guard JSONNumber.isValid(Array(text.utf8)) else { return nil }
        self.text = text
    }

    /// An integer number.
    public init(_ value: Int64) {
        self.text = String(value)
    }

    /// Text already checked by the parser.
    package init(validatedText: String) {
        self.text = validatedText
    }

    public var description: String { text }

    /// The value as a `Double` (may round for long integers).
    public var doubleValue: Double { Double(text) ?? .nan }

    /// The value truncated toward zero to whole units, when it fits in `Int64`.
    ///
    /// `1700000000` → `1700000000`, `1548804634.95` → `1548804634`, `1e3` → `1000`.
    public var truncatedInt64: Int64? {
        if let exact = Int64(text) { return exact }
        let value = doubleValue
        guard value.isFinite, value >= -9.223372036854775808e18, value < 9.223372036854775808e18 else { return nil }
        return Int64(value.rounded(.towardZero))
    }

    /// Whether `bytes` follow the JSON number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        var index = 0
        return scan(bytes, &index) && index == bytes.count
    }

    /// Advances `index` over a number starting there; `false` when no valid number starts there.
    package static func scan(_ bytes: some RandomAccessCollection<UInt8>, _ index: inout Int) -> Bool {
        let start = bytes.startIndex
        func at(_ i: Int) -> UInt8? { i < bytes.count ? bytes[bytes.index(start, offsetBy: i)] : nil }
        func isDigit(_ b: UInt8?) -> Bool { b.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
        if at(index) == UInt8(ascii: "-") { index += 1 }
        if at(index) == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(at(index)) {
            while isDigit(at(index)) { index += 1 }
        } else {
            return false
        }
        if at(index) == UInt8(ascii: ".") {
            index += 1
            guard isDigit(at(index)) else { return false }
            while isDigit(at(index)) { index += 1 }
        }
        if at(index) == UInt8(ascii: "e") || at(index) == UInt8(ascii: "E") {
            index += 1
            if at(index) == UInt8(ascii: "+") || at(index) == UInt8(ascii: "-") { index += 1 }
            guard isDigit(at(index)) else { return false }
            while isDigit(at(index)) { index += 1 }
        }
        return true
    }
}
