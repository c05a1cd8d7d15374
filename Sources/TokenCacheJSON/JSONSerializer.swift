/// Writes ``JSONValue`` as compact UTF-8 JSON.
///
/// Choices, all readable by NSJSONSerialization, System.Text.Json and the other MSAL readers:
/// no whitespace; non-ASCII characters written raw; `/` written unescaped (Apple writes `\/`, and
/// parses both); `"`, `\` and control characters escaped (`\n`, `\t`, … or `\u00XX`).
enum JSONSerializer {
    static func write(_ value: JSONValue, to out: inout [UInt8], sortingKeys: Bool) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): out.append(contentsOf: number.text.utf8)
        case .string(let string): writeString(string, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(element, to: &out, sortingKeys: sortingKeys)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            let members = sortingKeys ? object.sortedMembers : Array(object)
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, to: &out, sortingKeys: sortingKeys)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// About the size of `value` written, from its top level (a cache entry is one object of
    /// strings, a token among them): the buffer is allocated once instead of doubling from empty
    /// to the size of the token, copying it each time.
    static func estimatedSize(of value: JSONValue) -> Int {
        guard case .object(let object) = value else { return 64 }
        var size = 2
        for member in object {
            size += member.key.utf8.count + 4
            if case .string(let string) = member.value { size += string.utf8.count } else { size += 16 }
        }
        return size
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Runs that need no escape (found eight bytes at a time, as the parser finds them) are
        // copied in one go; a token of a thousand characters is one run.
        let written = string.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            let raw = UnsafeRawBufferPointer(bytes)
            var start = 0
            while start < raw.count {
                let end = jsonPlainRunEnd(raw, from: start)
                if end > start { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start..<end])) }
                guard end < raw.count else { break }
                writeByte(raw[end], to: &out)
                start = end + 1
            }
            return true
        }
        if written == nil {
            for byte in string.utf8 { writeByte(byte, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// One byte of a string: escaped when JSON requires it, else as it is (UTF-8 continuation and
    /// lead bytes included: non-ASCII characters are written raw).
    @inline(__always)
    private static func writeByte(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
        case 0x00..<0x20:
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0xF)])
        default: out.append(byte)
        }
    }
}
