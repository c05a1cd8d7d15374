#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A strict RFC 8259 parser (plus BOM and optional trailing commas) producing ``JSONValue``.
package struct JSONParser {
    /// The deepest nesting accepted. Parsing keeps no stack of its own on the thread's, but the
    /// walks over a parsed value (serializing, comparing, freeing) recurse, one frame or a few a
    /// level: at 64 levels they fit a 128 KiB thread stack with room to spare, and no cache, token
    /// response or entry nests more than a handful.
    static let depthLimit = 64
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
    /// Takes the entries of the built root members instead of their objects (see
    /// `JSONParser+Entries.swift`); `nil`: values go into their containers.
    private let visitor: ((JSONEntryEvent) -> JSONVisit)?
    /// Set when the visitor asked to stop.
    private(set) var stopped = false

    init(bytes: UnsafeBufferPointer<UInt8>, allowTrailingCommas: Bool, builtRootMembers: Set<String>?, visitor: ((JSONEntryEvent) -> JSONVisit)? = nil) {
        self.bytes = bytes
        self.allowTrailingCommas = allowTrailingCommas
        self.builtRootMembers = builtRootMembers
        self.visitor = visitor
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
                return try parser.parseDocument()
            }
        }
        return try result!.get()
    }

    /// The document's value, with nothing after it but white space; `.null` when the visitor stopped.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw error(.empty) }
        let value = try parseDocumentValue()
        if stopped { return .null }
        skipWhitespace()
        guard position == bytes.count else { throw error(.trailingContent) }
        return value
    }

    // MARK: - Values

    /// An array or object whose members are being read. The parse keeps these on a heap stack, not
    /// the thread's, so a document nested to ``depthLimit`` costs no more thread stack than a flat
    /// one, however small the calling thread's stack is. The containers themselves wait in
    /// `objects` and `arrays`, where they grow in place.
    private enum Frame {
        /// An object; `key` names the member whose value is being read.
        case object(key: String, build: Bool)
        case array(build: Bool)
    }

    /// The document's one value; values not built (see
    /// ``parse(_:allowTrailingCommas:buildingRootMembers:)``) are placeholders of their kind.
    private mutating func parseDocumentValue() throws(JSONParseError) -> JSONValue {
        var stack: [Frame] = []
        var objects: [JSONObject] = []
        var arrays: [[JSONValue]] = []
        var build = true
        // The value count when the visited entry being read began: it is freed once handed over.
        var valuesBeforeEntry = 0
        while true {
            // A value starts here, nested `stack.count` levels deep.
            guard stack.count < Self.depthLimit else { throw error(.tooDeep(limit: Self.depthLimit)) }
            if stack.count == 2 { valuesBeforeEntry = values }
            values += 1
            guard values <= Self.valueLimit else { throw error(.tooManyValues(limit: Self.valueLimit)) }
            guard let byte = peek() else { throw error(.unexpectedEnd) }
            var value: JSONValue
            switch byte {
            case UInt8(ascii: "{"):
                position += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "}") {
                    position += 1
                    value = .object(JSONObject())
                } else {
                    let (key, buildValue) = try memberName(depth: stack.count, build: build)
                    if stopped { return .null }
                    stack.append(.object(key: key, build: build))
                    objects.append(JSONObject())
                    build = buildValue
                    continue
                }
            case UInt8(ascii: "["):
                position += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "]") {
                    position += 1
                    value = .array([])
                } else {
                    stack.append(.array(build: build))
                    arrays.append([])
                    continue
                }
            case UInt8(ascii: "\""): value = .string(try parseString(build: build))
            case UInt8(ascii: "t"): try expectLiteral("true"); value = .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); value = .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
            default: throw error(.unexpectedCharacter(expected: "a value"))
            }
            // `value` is complete: hand it to its container, closing every container it completes.
            ascend: while true {
                guard let frame = stack.popLast() else { return value }
                switch frame {
                case .object(let key, let built):
                    if let visitor, built, stack.count == 1, case .object = stack[0] {
                        // An entry of a visited root member: handed over, not kept.
                        values = valuesBeforeEntry
                        if visitor(.entry(key: key, value: value)) == .stop {
                            stopped = true
                            return .null
                        }
                    } else if built {
                        objects[objects.count - 1][key] = value
                    }
                    skipWhitespace()
                    guard let next = peek() else { throw error(.unexpectedEnd) }
                    position += 1
                    if next == UInt8(ascii: "}") {
                        value = .object(objects.removeLast())
                        continue ascend
                    }
                    guard next == UInt8(ascii: ",") else {
                        position -= 1
                        throw error(.unexpectedCharacter(expected: "',' or '}'"))
                    }
                    skipWhitespace()
                    if peek() == UInt8(ascii: "}"), allowTrailingCommas {
                        position += 1
                        value = .object(objects.removeLast())
                        continue ascend
                    }
                    let (nextKey, buildValue) = try memberName(depth: stack.count, build: built)
                    if stopped { return .null }
                    stack.append(.object(key: nextKey, build: built))
                    build = buildValue
                    break ascend
                case .array(let built):
                    if built { arrays[arrays.count - 1].append(value) }
                    skipWhitespace()
                    guard let next = peek() else { throw error(.unexpectedEnd) }
                    position += 1
                    if next == UInt8(ascii: "]") {
                        value = .array(arrays.removeLast())
                        continue ascend
                    }
                    guard next == UInt8(ascii: ",") else {
                        position -= 1
                        throw error(.unexpectedCharacter(expected: "',' or ']'"))
                    }
                    skipWhitespace()
                    if peek() == UInt8(ascii: "]"), allowTrailingCommas {
                        position += 1
                        value = .array(arrays.removeLast())
                        continue ascend
                    }
                    stack.append(.array(build: built))
                    build = built
                    break ascend
                }
            }
        }
    }

    /// A member's name and the colon after it, at the start of the member (white space skipped);
    /// returns the name and whether the member's value is built. `depth` is the object's own.
    private mutating func memberName(depth: Int, build: Bool) throws(JSONParseError) -> (String, Bool) {
        guard let byte = peek() else { throw error(.unexpectedEnd) }
        guard byte == UInt8(ascii: "\"") else { throw error(.unexpectedCharacter(expected: "a member name in quotes")) }
        // Root member names are always built: they decide which values are.
        let key = try parseString(build: build || depth == 0)
        skipWhitespace()
        guard let colon = peek() else { throw error(.unexpectedEnd) }
        guard colon == UInt8(ascii: ":") else { throw error(.unexpectedCharacter(expected: "':'")) }
        position += 1
        skipWhitespace()
        if depth == 0, let visitor {
            let visit = visitor(.member(name: key))
            if visit == .stop { stopped = true }
            return (key, visit == .visit)
        }
        return (key, build && (depth > 0 || builtRootMembers?.contains(key) ?? true))
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
    /// A surrogate that is not half of a pair is refused: read as U+FFFD, two different ids would
    /// become one.
    private mutating func parseUnicodeEscape() throws(JSONParseError) -> [UInt8] {
        let escape = position - 2
        let high = try hex4()
        let scalar: Unicode.Scalar?
        if (0xD800...0xDBFF).contains(high) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                position = escape
                throw error(.unpairedSurrogate)
            }
            position += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                position = escape
                throw error(.unpairedSurrogate)
            }
            scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        } else {
            scalar = Unicode.Scalar(high)  // nil for a low surrogate without its high half
        }
        guard let scalar else {
            position = escape
            throw error(.unpairedSurrogate)
        }
        return Array(String(Character(scalar)).utf8)
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
