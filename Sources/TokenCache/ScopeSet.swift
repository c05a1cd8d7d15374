import TokenCacheSchema

/// Scopes compared as MSAL compares them: split on spaces, blanks dropped, case-insensitive.
///
/// A token holds a handful of scopes, so they are kept as one run of lower-case bytes and searched
/// linearly: cheaper than hashing each scope, and a lookup tests its request against them in place,
/// case-folding as it compares, without building a set of its own.
struct ScopeSet: Sendable, Hashable {
    /// Scopes every token response grants implicitly; they never decide whether a token matches.
    static let reserved = ["openid", "profile", "offline_access"]
    private static let packedReserved = Array(reserved.joined(separator: " ").utf8)

    /// The normalized scopes, without repeats, in first-seen order, joined by single spaces, as
    /// bytes: what ``containsAll(requested:)`` searches.
    private let packed: [UInt8]

    /// Normalized, without repeats, in first-seen order.
    var normalized: [String] {
        packed.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
    }

    init(_ target: String) {
        var packed: [UInt8] = []
        var ascii = true
        target.utf8.withContiguousStorageIfAvailable { bytes in
            // One pass for the usual ASCII target: words trimmed, lower-cased and appended unless
            // already there. Anything else takes the general path below.
            packed.reserveCapacity(bytes.count)
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: " ") { end += 1 }
                var low = start
                var high = end
                while low < high && Self.isSpace(bytes[low]) { low += 1 }
                while high > low && Self.isSpace(bytes[high - 1]) { high -= 1 }
                let word = UnsafeBufferPointer(rebasing: bytes[low..<high])
                if word.contains(where: { $0 >= 0x80 }) {
                    ascii = false
                    return
                }
                if !word.isEmpty && !packed.withUnsafeBufferPointer({ Self.find(word, in: $0) }) {
                    if !packed.isEmpty { packed.append(UInt8(ascii: " ")) }
                    for byte in word { packed.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) }
                }
                start = end + 1
            }
        } ?? { ascii = false }()
        if !ascii {
            var scopes: [String] = []
            for part in target.split(separator: " ") {
                let scope = norm(String(part))
                if !scope.isEmpty && !scopes.contains(scope) { scopes.append(scope) }
            }
            packed = Array(scopes.joined(separator: " ").utf8)
        }
        self.packed = packed
    }

    init(_ scopes: [String]) {
        self.init(scopes.joined(separator: " "))
    }

    func intersects(_ other: ScopeSet) -> Bool {
        packed.withUnsafeBufferPointer { mine in
            other.packed.withUnsafeBufferPointer { theirs in
                var start = 0
                while start < mine.count {
                    var end = start
                    while end < mine.count && mine[end] != UInt8(ascii: " ") { end += 1 }
                    if Self.find(UnsafeBufferPointer(rebasing: mine[start..<end]), in: theirs) { return true }
                    start = end + 1
                }
                return false
            }
        }
    }

    var isEmpty: Bool { packed.isEmpty }

    /// Whether every requested scope except the reserved ones is among these. Entries of
    /// `requested` may hold several scopes separated by spaces; each is trimmed and compared
    /// without regard to case, without allocating unless it contains non-ASCII text.
    func containsAll(requested: [String]) -> Bool {
        for entry in requested {
            let found = entry.utf8.withContiguousStorageIfAvailable { bytes in
                var start = 0
                while start < bytes.count {
                    var end = start
                    while end < bytes.count && bytes[end] != UInt8(ascii: " ") { end += 1 }
                    if !contains(requestedScope: UnsafeBufferPointer(rebasing: bytes[start..<end])) { return false }
                    start = end + 1
                }
                return true
            } ?? contains(slowly: entry)
            if !found { return false }
        }
        return true
    }

    /// Whether one requested scope (raw text, no spaces) is here, or is reserved or blank.
    private func contains(requestedScope raw: UnsafeBufferPointer<UInt8>) -> Bool {
        var low = 0
        var high = raw.count
        while low < high && Self.isSpace(raw[low]) { low += 1 }
        while high > low && Self.isSpace(raw[high - 1]) { high -= 1 }
        if low == high { return true }
        let part = UnsafeBufferPointer(rebasing: raw[low..<high])
        if part.contains(where: { $0 >= 0x80 }) {
            let scope = norm(String(decoding: part, as: UTF8.self))
            return scope.isEmpty || Self.reserved.contains(scope) || normalized.contains(scope)
        }
        return Self.packedReserved.withUnsafeBufferPointer { Self.find(part, in: $0) }
            || packed.withUnsafeBufferPointer { Self.find(part, in: $0) }
    }

    /// `containsAll` for text without contiguous UTF-8 storage (bridged strings).
    private func contains(slowly entry: String) -> Bool {
        var copy = entry
        copy.makeContiguousUTF8()
        return containsAll(requested: [copy])
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }

    /// Whether ASCII `part`, lower-cased, is one of the space-separated lower-case words of `packed`.
    private static func find(_ part: UnsafeBufferPointer<UInt8>, in packed: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        while start < packed.count {
            var end = start
            while end < packed.count && packed[end] != UInt8(ascii: " ") { end += 1 }
            if end - start == part.count {
                var index = 0
                while index < part.count {
                    var byte = part[index]
                    if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte |= 0x20 }
                    if byte != packed[start + index] { break }
                    index += 1
                }
                if index == part.count { return true }
            }
            start = end + 1
        }
        return false
    }
}
