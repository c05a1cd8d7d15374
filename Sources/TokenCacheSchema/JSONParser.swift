import Foundation

/// A strict RFC 8259 parser (plus BOM and optional trailing commas) producing ``JSONValue``.
struct JSONParser {
    static let depthLimit = 512
    /// The most values (scalars, arrays, objects) one document may hold. A parsed value takes
    /// around 50 bytes however short its text (`[]` is two), so this bounds the tree at a few hundred
    /// MB whatever the input; MSAL caches hold a dozen values per entry.
    static let valueLimit = 8_000_000

    private let bytes: [UInt8]
    private var position = 0
    private var values = 0
    private let allowTrailingCommas: Bool

    private init(bytes: [UInt8], allowTrailingCommas: Bool) {
        self.bytes = bytes
        self.allowTrailingCommas = allowTrailingCommas
    }

    static func parse(_ data: Data, allowTrailingCommas: Bool) throws(JSONParseError) -> JSONValue {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var parser = JSONParser(bytes: bytes, allowTrailingCommas: allowTrailingCommas)
        parser.skipWhitespace()
        guard parser.position < bytes.count else { throw parser.error(.empty) }
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error(.trailingContent) }
        return value
    }

    // MARK: - Values

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.depthLimit else { throw error(.tooDeep(limit: Self.depthLimit)) }
        values += 1
        guard values <= Self.valueLimit else { throw error(.tooManyValues(limit: Self.valueLimit)) }
        guard let byte = peek() else { throw error(.unexpectedEnd) }
        switch byte {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error(.unexpectedCharacter(expected: "a value"))
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONObject {
        position += 1  // {
        var object = JSONObject()
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { position += 1; return object }
        while true {
            skipWhitespace()
            guard let byte = peek() else { throw error(.unexpectedEnd) }
            if byte == UInt8(ascii: "}"), allowTrailingCommas, !object.isEmpty { position += 1; return object }
            guard byte == UInt8(ascii: "\"") else { throw error(.unexpectedCharacter(expected: "a member name in quotes")) }
            let key = try parseString()
            skipWhitespace()
            guard let colon = peek() else { throw error(.unexpectedEnd) }
            guard colon == UInt8(ascii: ":") else { throw error(.unexpectedCharacter(expected: "':'")) }
            position += 1
            skipWhitespace()
            object[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            guard let next = peek() else { throw error(.unexpectedEnd) }
            position += 1
            if next == UInt8(ascii: "}") { return object }
            guard next == UInt8(ascii: ",") else {
                position -= 1
                throw error(.unexpectedCharacter(expected: "',' or '}'"))
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> [JSONValue] {
        position += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { position += 1; return elements }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]"), allowTrailingCommas, !elements.isEmpty { position += 1; return elements }
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard let next = peek() else { throw error(.unexpectedEnd) }
            position += 1
            if next == UInt8(ascii: "]") { return elements }
            guard next == UInt8(ascii: ",") else {
                position -= 1
                throw error(.unexpectedCharacter(expected: "',' or ']'"))
            }
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = position
        var index = 0
        let rest = bytes[start...]
        guard JSONNumber.scan(rest, &index) else {
            position = start + index
            if position >= bytes.count { throw error(.unexpectedEnd) }
            throw error(.invalidNumber)
        }
        position = start + index
        return JSONNumber(validatedText: String(decoding: bytes[start..<position], as: UTF8.self))
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = bytes[start..<position]
                guard let text = String(validating: slice, as: UTF8.self) else {
                    position = start
                    throw error(.invalidUTF8)
                }
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error(.controlCharacterInString) }
            position += 1
        }
        var buffer = [UInt8](bytes[start..<position])
        while true {
            guard position < bytes.count else { throw error(.unexpectedEnd) }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    position = start
                    throw error(.invalidUTF8)
                }
                position += 1
                return text
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { throw error(.unexpectedEnd) }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"): buffer.append(contentsOf: try parseUnicodeEscape())
                default:
                    position -= 2
                    throw error(.invalidEscape)
                }
            default:
                if byte < 0x20 { throw error(.controlCharacterInString) }
                buffer.append(byte)
                position += 1
            }
        }
    }

    /// Parses the hex digits after `\u` (and a following low-surrogate escape) into UTF-8 bytes.
    private mutating func parseUnicodeEscape() throws(JSONParseError) -> [UInt8] {
        let high = try hex4()
        var scalar: Unicode.Scalar?
        if (0xD800...0xDBFF).contains(high) {
            if position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                let save = position
                position += 2
                let low = try hex4()
                if (0xDC00...0xDFFF).contains(low) {
                    scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    position = save  // not a pair: the high surrogate alone becomes U+FFFD
                }
            }
        } else {
            scalar = Unicode.Scalar(high)
        }
        return Array(String(Character(scalar ?? "\u{FFFD}")).utf8)
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < bytes.count else { throw error(.unexpectedEnd) }
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
            default: throw error(.invalidUnicodeEscape)
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = literal.withUTF8Buffer { Array($0) }
        for byte in expected {
            guard position < bytes.count else { throw error(.unexpectedEnd) }
            guard bytes[position] == byte else { throw error(.unexpectedCharacter(expected: "a value")) }
            position += 1
        }
    }

    // MARK: - Helpers

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func error(_ reason: JSONParseError.Reason) -> JSONParseError {
        let offset = min(position, bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0..<offset where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return JSONParseError(reason: reason, offset: offset, line: line, column: offset - lineStart + 1)
    }
}
