@_spi(Text) import TokenCacheSchema

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
            _ = Self.anyWord(of: bytes) { raw in
                let word = Self.trimmed(raw)
                if word.contains(where: { $0 >= 0x80 }) {
                    ascii = false
                    return true
                }
                if !word.isEmpty && !packed.withUnsafeBufferPointer({ Self.find(word, in: $0) }) {
                    if !packed.isEmpty { packed.append(UInt8(ascii: " ")) }
                    for byte in word { packed.append(Self.lowercased(byte)) }
                }
                return false
            }
        } ?? { ascii = false }()
        if !ascii {
            var scopes: [String] = []
            for part in target.split(separator: " ") {
                let scope = ItemKey.normalized(String(part))
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
            other.packed.withUnsafeBufferPointer { theirs in Self.anyWord(of: mine) { Self.find($0, in: theirs) } }
        }
    }

    var isEmpty: Bool { packed.isEmpty }

    /// Whether every requested scope except the reserved ones is among these. Entries of
    /// `requested` may hold several scopes separated by spaces; each is trimmed and compared
    /// without regard to case, without allocating unless it contains non-ASCII text.
    func containsAll(requested: [String]) -> Bool {
        for entry in requested {
            let found = entry.utf8.withContiguousStorageIfAvailable { bytes in
                !Self.anyWord(of: bytes) { !contains(requestedScope: $0) }
            } ?? contains(slowly: entry)
            if !found { return false }
        }
        return true
    }

    /// Whether one requested scope (raw text, no spaces) is here, or is reserved or blank.
    private func contains(requestedScope raw: UnsafeBufferPointer<UInt8>) -> Bool {
        let part = Self.trimmed(raw)
        if part.isEmpty { return true }
        if part.contains(where: { $0 >= 0x80 }) {
            let scope = ItemKey.normalized(String(decoding: part, as: UTF8.self))
            return scope.isEmpty || Self.reserved.contains(scope) || normalized.contains(scope)
        }
        // The token's own scopes first: a requested scope is usually among them.
        return packed.withUnsafeBufferPointer { Self.find(part, in: $0) }
            || Self.packedReserved.withUnsafeBufferPointer { Self.find(part, in: $0) }
    }

    /// `containsAll` for text without contiguous UTF-8 storage (bridged strings).
    private func contains(slowly entry: String) -> Bool {
        var copy = entry
        copy.makeContiguousUTF8()
        return containsAll(requested: [copy])
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// `word` without the whitespace at its ends.
    private static func trimmed(_ word: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var low = 0
        var high = word.count
        while low < high && word[low].isASCIIWhitespace { low += 1 }
        while high > low && word[high - 1].isASCIIWhitespace { high -= 1 }
        return UnsafeBufferPointer(rebasing: word[low..<high])
    }

    /// Whether `predicate` holds for one of the runs of `bytes` between single spaces (a run may be
    /// empty), tried first to last.
    private static func anyWord(of bytes: UnsafeBufferPointer<UInt8>, where predicate: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: " ") { end += 1 }
            if predicate(UnsafeBufferPointer(rebasing: bytes[start..<end])) { return true }
            start = end + 1
        }
        return false
    }

    /// Whether ASCII `part`, lower-cased, is one of the space-separated lower-case words of `packed`.
    private static func find(_ part: UnsafeBufferPointer<UInt8>, in packed: UnsafeBufferPointer<UInt8>) -> Bool {
        anyWord(of: packed) { word in
            word.count == part.count && zip(part, word).allSatisfy { lowercased($0) == $1 }
        }
    }
}
