@_spi(Text) import TokenCacheSchema

/// Scopes compared as MSAL compares them: split on spaces, blanks dropped, case-insensitive.
///
/// A token holds a handful of scopes, so they are kept as one run of lower-case bytes and searched
/// linearly: cheaper than hashing each scope, and a lookup tests its request against them in place,
/// case-folding as it compares, without building a set of its own. Each scope in the run is
/// preceded by its length (LEB128), so a search steps from scope to scope and compares only the
/// bytes of scopes as long as the one it looks for.
struct ScopeSet: Sendable, Hashable {
    /// Scopes every token response grants implicitly; they never decide whether a token matches.
    static let reserved = ["openid", "profile", "offline_access"]
    private static let packedReserved = pack(reserved)

    /// The normalized scopes, without repeats, in first-seen order, each after its length: what
    /// ``containsAll(requested:)`` searches.
    private let packed: [UInt8]

    /// Normalized, without repeats, in first-seen order.
    var normalized: [String] {
        var scopes: [String] = []
        packed.withUnsafeBufferPointer { packed in
            _ = Self.anyScope(of: packed) { scope in
                scopes.append(String(decoding: scope, as: UTF8.self))
                return false
            }
        }
        return scopes
    }

    init(_ target: String) {
        // Refresh and ID tokens have no target: no buffer to reserve (a sixth of indexing one).
        if target.utf8.isEmpty {
            packed = []
            return
        }
        var packed: [UInt8] = []
        var ascii = true
        target.utf8.withContiguousStorageIfAvailable { bytes in
            // One pass for the usual ASCII target: words trimmed, lower-cased and appended unless
            // already there. Anything else takes the general path below.
            // Lengths take the separators' places; the first scope's, and those of scopes over
            // 127 bytes, add a byte or two (at worst one reallocation).
            packed.reserveCapacity(bytes.count + 4)
            // Past a few dozen scopes, repeats are found by hashing: a linear search each would
            // make a response of many scopes cost quadratic time.
            var seen: Set<[UInt8]>?
            var count = 0
            _ = Self.anyWord(of: bytes) { raw in
                let word = Self.trimmed(raw)
                if word.contains(where: { $0 >= 0x80 }) {
                    ascii = false
                    return true
                }
                if word.isEmpty { return false }
                if seen == nil && count >= Self.linearSearchLimit { seen = Set(packed.withUnsafeBufferPointer(Self.scopes)) }
                let repeated = seen != nil
                    ? !seen!.insert(word.map { $0.asciiLowercased }).inserted
                    : packed.withUnsafeBufferPointer { Self.find(word, in: $0) }
                if !repeated {
                    Self.appendLength(word.count, to: &packed)
                    for byte in word { packed.append(byte.asciiLowercased) }
                    count += 1
                }
                return false
            }
        } ?? { ascii = false }()
        if !ascii {
            var scopes: [String] = []
            var seen: Set<String> = []
            for part in target.split(separator: " ") {
                let scope = ItemKey.normalized(String(part))
                if !scope.isEmpty && seen.insert(scope).inserted { scopes.append(scope) }
            }
            packed = Self.pack(scopes)
        }
        self.packed = packed
    }

    init(_ scopes: [String]) {
        self.init(scopes.joined(separator: " "))
    }

    func intersects(_ other: ScopeSet) -> Bool {
        packed.withUnsafeBufferPointer { mine in
            other.packed.withUnsafeBufferPointer { theirs in
                guard mine.count > Self.linearSearchBytes, theirs.count > Self.linearSearchBytes else {
                    return Self.anyScope(of: mine) { Self.find($0, in: theirs) }
                }
                let set = Set(Self.scopes(theirs))
                return Self.anyScope(of: mine) { set.contains(Array($0)) }
            }
        }
    }

    var isEmpty: Bool { packed.isEmpty }

    /// Whether every requested scope except the reserved ones is among these. Entries of
    /// `requested` may hold several scopes separated by spaces; each is trimmed and compared
    /// without regard to case, without allocating unless it contains non-ASCII text.
    func containsAll(requested: [String]) -> Bool {
        if packed.count > Self.linearSearchBytes, requested.reduce(0, { $0 + $1.utf8.count }) > Self.linearSearchBytes {
            return containsAll(manyRequested: requested)
        }
        for entry in requested {
            let found = entry.utf8.withContiguousStorageIfAvailable { bytes in
                !Self.anyWord(of: bytes) { !contains(requestedScope: $0) }
            } ?? contains(slowly: entry)
            if !found { return false }
        }
        return true
    }

    /// ``containsAll(requested:)`` for many scopes against many: each requested scope looked up in
    /// a set of these, in time linear in both.
    private func containsAll(manyRequested requested: [String]) -> Bool {
        var mine = Set(packed.withUnsafeBufferPointer(Self.scopes))
        for scope in Self.reserved { mine.insert(Array(scope.utf8)) }
        for entry in requested {
            for part in entry.split(separator: " ") {
                let scope = ItemKey.normalized(String(part))
                if !scope.isEmpty && !mine.contains(Array(scope.utf8)) { return false }
            }
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

    /// How many scopes a set holds before repeats are found by hashing rather than searching.
    private static let linearSearchLimit = 32
    /// How many packed bytes two sets may hold before they are compared through a hashed set.
    private static let linearSearchBytes = 1024

    /// Every scope of `packed`, as bytes.
    private static func scopes(_ packed: UnsafeBufferPointer<UInt8>) -> [[UInt8]] {
        var scopes: [[UInt8]] = []
        _ = anyScope(of: packed) { scope in
            scopes.append(Array(scope))
            return false
        }
        return scopes
    }

    /// Normalized scopes, each after its length.
    private static func pack(_ scopes: [String]) -> [UInt8] {
        var packed: [UInt8] = []
        for scope in scopes {
            appendLength(scope.utf8.count, to: &packed)
            packed += scope.utf8
        }
        return packed
    }

    /// `length` as LEB128: seven bits a byte, low first, the high bit set on all but the last.
    private static func appendLength(_ length: Int, to packed: inout [UInt8]) {
        var rest = UInt(length)
        while rest >= 0x80 {
            packed.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        packed.append(UInt8(rest))
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
    /// empty), tried first to last: the words of a request.
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

    /// Whether `predicate` holds for one of the scopes of `packed`, tried first to last.
    private static func anyScope(of packed: UnsafeBufferPointer<UInt8>, where predicate: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var index = 0
        while index < packed.count {
            let (length, start) = scope(at: index, in: packed)
            if predicate(UnsafeBufferPointer(rebasing: packed[start..<start + length])) { return true }
            index = start + length
        }
        return false
    }

    /// The length of the scope whose length starts at `index`, and where its bytes start.
    @inline(__always)
    private static func scope(at index: Int, in packed: UnsafeBufferPointer<UInt8>) -> (length: Int, start: Int) {
        var index = index
        var length = 0
        var shift = 0
        while true {
            let byte = packed[index]
            index += 1
            length |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return (length, index) }
            shift += 7
        }
    }

    /// Whether `part`, lower-cased (ASCII letters only), is one of the scopes of `packed`.
    private static func find(_ part: UnsafeBufferPointer<UInt8>, in packed: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < packed.count {
            let (length, start) = scope(at: index, in: packed)
            if length == part.count {
                var offset = 0
                while offset < length && part[offset].asciiLowercased == packed[start + offset] { offset += 1 }
                if offset == length { return true }
            }
            index = start + length
        }
        return false
    }
}
