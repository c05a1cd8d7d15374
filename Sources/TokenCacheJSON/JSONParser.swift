#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A strict RFC 8259 parser (plus BOM and optional trailing commas) producing ``JSONValue``.
package struct JSONParser {
    static let depthLimit = 512
    /// The most values (scalars, arrays, objects) one document may hold. A parsed value takes
    /// around 50 bytes however short its text (`[]` is two), so this bounds the tree at a few hundred
    /// MB whatever the input; MSAL caches hold a dozen values per entry.
    static let valueLimit = 8_000_000

    /// The document (without a byte-order mark), valid for the parse only.
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var values = 0
    private let allowTrailingCommas: Bool
    /// Members of the root object whose values are built; the others are only checked (see
    /// ``parse(_:allowTrailingCommas:buildingRootMembers:)``). `nil`: every value is built.
    private let builtRootMembers: Set<String>?

    private init(bytes: UnsafeBufferPointer<UInt8>, allowTrailingCommas: Bool, builtRootMembers: Set<String>?) {
        self.bytes = bytes
        self.allowTrailingCommas = allowTrailingCommas
        self.builtRootMembers = builtRootMembers
    }

    package static func parse(_ data: Data, allowTrailingCommas: Bool) throws(JSONParseError) -> JSONValue {
        try parse(data, allowTrailingCommas: allowTrailingCommas, buildingRootMembers: nil)
    }

    /// Parses `data` exactly as ``parse(_:allowTrailingCommas:)`` does — the same grammar, limits
    /// and errors, so the two accept the same documents — but builds only the values of the root
    /// object's members named in `built`. Every other member's value is checked and replaced by a
    /// placeholder of the same kind: a string of more than 15 UTF-8 bytes by `""`, an object by
    /// `{}`, an array by `[]` (shorter strings, numbers and literals cost nothing to build and are
    /// kept). Type checks on a placeholder answer as on the real value.
    ///
    /// Opening a cache reads every payload for a handful of fields; this spares it building each
    /// token's secret and the members it does not index.
    package static func parse(_ data: Data, allowTrailingCommas: Bool, buildingRootMembers built: Set<String>?) throws(JSONParseError) -> JSONValue {
        // Parsed in place: the payload is not copied.
        var result: Result<JSONValue, JSONParseError>?
        data.withUnsafeBytes { raw in
            var bytes = raw.assumingMemoryBound(to: UInt8.self)
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = UnsafeBufferPointer(rebasing: bytes[3...]) }
            result = Result { () throws(JSONParseError) -> JSONValue in
                var parser = JSONParser(bytes: bytes, allowTrailingCommas: allowTrailingCommas, builtRootMembers: built)
                parser.skipWhitespace()
                guard parser.position < bytes.count else { throw parser.error(.empty) }
                let value = try parser.parseValue(depth: 0)
                parser.skipWhitespace()
                guard parser.position == bytes.count else { throw parser.error(.trailingContent) }
                return value
            }
        }
        return try result!.get()
    }

    // MARK: - Values

    /// One value; with `build` false, one checked by the same grammar and returned as a placeholder
    /// of its kind (see ``parse(_:allowTrailingCommas:buildingRootMembers:)``).
    private mutating func parseValue(depth: Int, build: Bool = true) throws(JSONParseError) -> JSONValue {
        guard depth < Self.depthLimit else { throw error(.tooDeep(limit: Self.depthLimit)) }
        values += 1
        guard values <= Self.valueLimit else { throw error(.tooManyValues(limit: Self.valueLimit)) }
        guard let byte = peek() else { throw error(.unexpectedEnd) }
        switch byte {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth, build: build))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth, build: build))
        case UInt8(ascii: "\""): return .string(try parseString(build: build))
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error(.unexpectedCharacter(expected: "a value"))
        }
    }

    private mutating func parseObject(depth: Int, build: Bool) throws(JSONParseError) -> JSONObject {
        position += 1  // {
        var object = JSONObject()
        var members = 0
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { position += 1; return object }
        while true {
            skipWhitespace()
            guard let byte = peek() else { throw error(.unexpectedEnd) }
            if byte == UInt8(ascii: "}"), allowTrailingCommas, members > 0 { position += 1; return object }
            guard byte == UInt8(ascii: "\"") else { throw error(.unexpectedCharacter(expected: "a member name in quotes")) }
            // Root member names are always built: they decide which values are.
            let key = try parseString(build: build || depth == 0)
            skipWhitespace()
            guard let colon = peek() else { throw error(.unexpectedEnd) }
            guard colon == UInt8(ascii: ":") else { throw error(.unexpectedCharacter(expected: "':'")) }
            position += 1
            skipWhitespace()
            let buildValue = build && (depth > 0 || builtRootMembers?.contains(key) ?? true)
            let value = try parseValue(depth: depth + 1, build: buildValue)
            if build { object[key] = value }
            members += 1
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

    private mutating func parseArray(depth: Int, build: Bool) throws(JSONParseError) -> [JSONValue] {
        position += 1  // [
        var elements: [JSONValue] = []
        var count = 0
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { position += 1; return elements }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]"), allowTrailingCommas, count > 0 { position += 1; return elements }
            let element = try parseValue(depth: depth + 1, build: build)
            if build { elements.append(element) }
            count += 1
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

    /// A string; with `build` false, checked the same way but read as `""` when longer than 15
    /// bytes (a string that short is stored inline, so building it costs nothing).
    private mutating func parseString(build: Bool = true) throws(JSONParseError) -> String {
        position += 1  // opening quote
        let start = position
        var ascii = true
        // Fast path: no escapes.
        while true {
            position = plainRunEnd(from: position)
            guard position < bytes.count else { break }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = bytes[start..<position]
                let text: String
                if ascii {
                    text = build || slice.count <= 15 ? String(decoding: slice, as: UTF8.self) : ""
                } else {
                    guard let valid = String(validating: slice, as: UTF8.self) else {
                        position = start
                        throw error(.invalidUTF8)
                    }
                    text = build || slice.count <= 15 ? valid : ""
                }
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error(.controlCharacterInString) }
            ascii = false  // a byte of 0x80 or more
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
                return build || buffer.count <= 15 ? text : ""
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

    private func plainRunEnd(from start: Int) -> Int {
        jsonPlainRunEnd(UnsafeRawBufferPointer(bytes), from: start)
    }

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

/// The position of the first byte at or after `start` that ends a run of plain string content:
/// a quote, a backslash, a control character or a non-ASCII byte (or the end). Eight bytes are
/// tested at a time, so a long token is crossed in a fraction of a byte-by-byte loop's time.
package func jsonPlainRunEnd(_ raw: UnsafeRawBufferPointer, from start: Int) -> Int {
    do {
        var index = start
        let count = raw.count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // A byte of the word is zero, or below 0x20, exactly when its high bit is set in
            // these (the classic "has zero byte" test; exact once non-ASCII bytes are excluded).
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = (quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word
            if (special | word) & highs != 0 { break }
            index += 8
        }
        while index < count {
            let byte = raw[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        return index
    }
}
