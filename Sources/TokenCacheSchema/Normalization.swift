import Foundation

/// Normalizes a key component the way the Apple libraries do (`msidNormalizedString`): trims
/// whitespace and newlines at both ends, then lower-cases.
///
/// Every unified keychain key is built from normalized parts, while payloads keep the original text
/// (`target`, `client_id`, `username` keep their case).
///
/// - Parameter string: the raw value, e.g. `" CONTOSO.COM\n"`.
/// - Returns: the normalized value, e.g. `"contoso.com"`.
public func norm(_ string: String) -> String {
    // Fast path: keys are almost always ASCII that is already lower-case and trimmed, and this runs
    // for every item the engine indexes.
    var ascii = true
    var clean = true
    for byte in string.utf8 {
        if byte >= 0x80 { ascii = false; break }
        if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { clean = false }
    }
    if ascii {
        let utf8 = string.utf8
        let isSpace = { (byte: UInt8) in byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        if clean, utf8.first.map(isSpace) != true, utf8.last.map(isSpace) != true { return string }
        var bytes = Array(utf8)
        while let last = bytes.last, isSpace(last) { bytes.removeLast() }
        let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
        return String(decoding: bytes[start...].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
    return string.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
}

/// `norm(_:)` of an optional value; `nil` stays `nil`.
public func norm(_ string: String?) -> String? {
    string.map { norm($0) }
}

extension String {
    /// Whether the string is empty or only whitespace and newlines (`msidIsStringNilOrBlank`).
    var isBlank: Bool {
        trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }
}
