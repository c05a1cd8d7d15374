@_spi(Text) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ItemKey {
    /// Normalizes a key component the way the Apple libraries do (`msidNormalizedString`, the
    /// schema's `norm()`): trims whitespace and newlines at both ends, then lower-cases.
    ///
    /// Every unified keychain key is built from normalized parts, while payloads keep the original
    /// text (`target`, `client_id`, `username` keep their case).
    ///
    /// - Parameter string: the raw value, e.g. `" CONTOSO.COM\n"`.
    /// - Returns: the normalized value, e.g. `"contoso.com"`.
    public static func normalized(_ string: String) -> String {
        normalizedKeyPart(string)
    }

    /// ``normalized(_:)-swift.type.method`` of an optional value; `nil` stays `nil`.
    public static func normalized(_ string: String?) -> String? {
        string.map { normalizedKeyPart($0) }
    }
}

private func normalizedKeyPart(_ string: String) -> String {
    // Fast path: keys are almost always ASCII that is already lower-case and trimmed, and this runs
    // for every item the engine indexes and every field a lookup compares.
    let utf8 = string.utf8
    // The ends are tested on the contiguous bytes: `utf8.last` walks the view generically.
    let verdict = utf8.withContiguousStorageIfAvailable { bytes -> ASCIICase in
        let found = asciiCase(bytes)
        guard found == .lowercase, let first = bytes.first, let last = bytes.last else { return found }
        return first.isASCIIWhitespace || last.isASCIIWhitespace ? .mixedCase : .lowercase
    }
    switch verdict ?? .nonASCII {
    case .lowercase:
        return string
    case .mixedCase:
        // On the contiguous bytes, eight at a time (walking the `Substring.UTF8View` byte by byte
        // cost about 55 instructions a byte). They are always there, since the verdict came from
        // them; the general path below is correct for any string all the same.
        if let lowered = utf8.withContiguousStorageIfAvailable({ lowercasedTrimmedASCII($0) }) {
            return lowered
        }
        fallthrough
    case .nonASCII:
        return string.trimming(.whitespacesAndNewlines).lowercased()
    }
}

private enum ASCIICase { case lowercase, mixedCase, nonASCII }

/// `bytes` (ASCII) without white space at either end, upper-case letters lowered: one allocation,
/// each word of eight bytes lowered at once (an upper-case letter's high bit from
/// `asciiUpperCaseBits`, moved down to 0x20, is the bit that lowers it).
private func lowercasedTrimmedASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    var start = 0
    var end = bytes.count
    while start < end, bytes[start].isASCIIWhitespace { start += 1 }
    while end > start, bytes[end - 1].isASCIIWhitespace { end -= 1 }
    let count = end - start
    return String(unsafeUninitializedCapacity: count) { buffer in
        guard count > 0, let source = bytes.baseAddress.map({ UnsafeRawPointer($0 + start) }),
            let target = buffer.baseAddress.map(UnsafeMutableRawPointer.init)
        else { return 0 }
        var offset = 0
        while offset + 8 <= count {
            let word = source.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            target.storeBytes(of: word.asciiLowercased, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < count {
            let byte = source.load(fromByteOffset: offset, as: UInt8.self)
            buffer[offset] = byte.asciiLowercased
            offset += 1
        }
        return count
    }
}

/// Whether `bytes` are ASCII, and whether any is an upper-case letter; eight bytes at a time.
private func asciiCase(_ bytes: UnsafeBufferPointer<UInt8>) -> ASCIICase {
    let raw = UnsafeRawBufferPointer(bytes)
    let highs: UInt64 = 0x8080_8080_8080_8080
    var upper: UInt64 = 0
    var index = 0
    while index + 8 <= raw.count {
        let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        if word & highs != 0 { return .nonASCII }
        upper |= word.asciiUpperCaseBits
        index += 8
    }
    if index < raw.count && raw.count >= 8 {
        // The rest as the last word, overlapping bytes already tested (which changes neither test).
        let word = raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self)
        if word & highs != 0 { return .nonASCII }
        upper |= word.asciiUpperCaseBits
        index = raw.count
    }
    while index < raw.count {
        let byte = raw[index]
        if byte >= 0x80 { return .nonASCII }
        if byte >= 0x41 && byte <= 0x5A { upper = 1 }
        index += 1
    }
    return upper == 0 ? .lowercase : .mixedCase
}


extension String {
    /// Whether the string is empty or only whitespace and newlines (`msidIsStringNilOrBlank`).
    var isBlank: Bool {
        // Any ASCII byte that is not white space settles it without the Unicode test (this runs for every
        // refresh token's key); only text of white space and non-ASCII takes the general test.
        if utf8.contains(where: { $0 < 0x80 && !$0.isASCIIWhitespace }) { return false }
        return trimming(.whitespacesAndNewlines).isEmpty
    }
}
