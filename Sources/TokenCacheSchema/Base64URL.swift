#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base64url as the Microsoft libraries write and read it.
///
/// Encoding is standard Base64 with `+` → `-`, `/` → `_` and every trailing `=` removed, without line
/// breaks. Decoding maps the alphabet back, trims whitespace at both ends, rejects a length that
/// leaves one character over (`length % 4 == 1`) and re-pads before decoding.
public enum Base64URL {
    /// Encodes bytes without padding.
    public static func encode(_ data: Data) -> String {
        var text = data.base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// Encodes the UTF-8 bytes of `string` without padding, e.g. the legacy ADAL account attribute.
    public static func encode(_ string: String) -> String {
        encode(Data(string.utf8))
    }

    /// Decodes base64url (padded or not); `nil` when the text is not valid base64url.
    public static func decode(_ text: String) -> Data? {
        var input = Array(text.utf8)[...]
        while let first = input.first, first.isASCIIWhitespace { input = input.dropFirst() }
        while let last = input.last, last.isASCIIWhitespace { input = input.dropLast() }
        // Input that already carries padding is accepted: it is stripped before decoding.
        while input.last == UInt8(ascii: "=") { input = input.dropLast() }
        guard input.count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
            default: return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero, as Foundation's strict decoder requires.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return Data(output)
    }

    /// Decodes base64url to a UTF-8 string, dropping one trailing NUL byte if present
    /// (`msidBase64UrlDecode`); `nil` when the text is not base64url or the bytes are not UTF-8.
    public static func decodeString(_ text: String) -> String? {
        guard var data = decode(text) else { return nil }
        if data.last == 0 { data.removeLast() }
        return String(data: data, encoding: .utf8)
    }
}
