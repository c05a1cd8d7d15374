import Foundation

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
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // Input that already carries padding is accepted: strip it and pad again below.
        while body.hasSuffix("=") { body.removeLast() }
        guard body.utf8.count % 4 != 1 else { return nil }
        var standard = String(body.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    /// Decodes base64url to a UTF-8 string, dropping one trailing NUL byte if present
    /// (`msidBase64UrlDecode`); `nil` when the text is not base64url or the bytes are not UTF-8.
    public static func decodeString(_ text: String) -> String? {
        guard var data = decode(text) else { return nil }
        if data.last == 0 { data.removeLast() }
        return String(data: data, encoding: .utf8)
    }
}
