import Glibc
@_spi(Text) import TokenCacheSchema

/// A 64-bit digest of the UTF-8 bytes of key strings, for the lookup maps whose keys are long.
///
/// The standard library's `Hasher` (SipHash) costs about seven instructions a byte, and an access
/// token's key (home account id, client id, realm) is 150 bytes: hashing it was a fifth of a warm
/// lookup. This folds eight bytes at a time with one 64 × 64 → 128-bit multiply, as wyhash and Go's
/// map hash do, and the map's `Hasher` then mixes only the eight-byte digest.
///
/// The seed is random per process, drawn from `Hasher`'s, so whoever writes the store (which the
/// threat model does not trust) does not know which keys collide. This is not SipHash's proven
/// resistance to chosen collisions; what a crafted store could gain is slower lookups of its own
/// keys, never a wrong answer: keys are still compared byte for byte.
struct KeyDigest: Sendable, Hashable {
    private(set) var value: UInt64

    /// Drawn from `Hasher`'s own per-process seed, so that `SWIFT_DETERMINISTIC_HASHING` fixes both.
    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x746F_6B65_6E63_6163 as UInt64)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }()
    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let finisher: UInt64 = 0xE703_7ED1_A0B4_28DB

    /// A digest of nothing yet.
    init() { value = Self.seed }

    /// Folds in the bytes of `string`, its length first (so that `("ab", "c")` and `("a", "bc")`
    /// differ).
    mutating func add(_ string: String) {
        if let folded = string.utf8.withContiguousStorageIfAvailable({ Self.fold(UnsafeRawBufferPointer($0), into: value) }) {
            value = folded
        } else {
            value = Array(string.utf8).withUnsafeBytes { Self.fold($0, into: value) }
        }
    }

    /// Folds in `string` normalized (``ItemKey/normalized(_:)-swift.type.method``) and returns it.
    ///
    /// A lookup's strings are almost always normalized already (ASCII, lower-case, trimmed): they
    /// are then tested in the same pass that folds them, and returned as they are; any other string
    /// is normalized first, then folded. Either way the digest is that of the normalized string.
    mutating func addNormalized(_ string: String) -> String {
        let folded = string.utf8.withContiguousStorageIfAvailable { bytes in
            Self.foldIfNormalized(UnsafeRawBufferPointer(bytes), into: value)
        }
        if let folded = folded ?? nil {
            value = folded
            return string
        }
        let normalized = ItemKey.normalized(string)
        add(normalized)
        return normalized
    }

    /// Folds in one word (flags, a case tag).
    mutating func add(word: UInt64) {
        value = Self.mix(value ^ word, Self.multiplier)
    }

    /// What a `Dictionary` or `Set` whose seed is `seed` files the digest under: one multiply,
    /// where `Hasher` would run SipHash's rounds over the same eight bytes (its seeding and
    /// finalization: about 160 instructions a probe of a map). For a key's
    /// `_rawHashValue(seed:)`, the requirement of `Hashable` that the standard library's collections
    /// call: the seed still varies the buckets from table to table, as with `Hasher`.
    func hashValue(seed: Int) -> Int {
        Int(truncatingIfNeeded: Self.mix(value ^ UInt64(bitPattern: Int64(seed)), Self.finisher))
    }

    private static func mix(_ first: UInt64, _ second: UInt64) -> UInt64 {
        let product = first.multipliedFullWidth(by: second)
        return product.high ^ product.low
    }

    /// ``fold(_:into:)``, or `nil` when `bytes` are not a normalized key: a byte outside ASCII, an
    /// upper-case letter, or white space at either end (what ``ItemKey`` normalization would change).
    private static func foldIfNormalized(_ bytes: UnsafeRawBufferPointer, into state: UInt64) -> UInt64? {
        if let first = bytes.first, let last = bytes.last, first.isASCIIWhitespace || last.isASCIIWhitespace { return nil }
        let (state, flagged) = fold(bytes, into: state, testing: true)
        return flagged & 0x8080_8080_8080_8080 == 0 ? state : nil
    }

    private static func fold(_ bytes: UnsafeRawBufferPointer, into state: UInt64) -> UInt64 {
        fold(bytes, into: state, testing: false).state
    }

    /// Folds in `string` as ``ItemKey/normalized(_:)-swift.type.method`` would make it, without
    /// making that string, when lower-casing is all normalization would do to it (ASCII, no white
    /// space at either end); otherwise folds nothing and returns `false`.
    mutating func addLowercasingASCII(_ string: String) -> Bool {
        let folded = string.utf8.withContiguousStorageIfAvailable { bytes -> UInt64? in
            let raw = UnsafeRawBufferPointer(bytes)
            if let first = raw.first, let last = raw.last, first.isASCIIWhitespace || last.isASCIIWhitespace { return nil }
            let (state, flagged) = Self.fold(raw, into: value, testing: false, lowercasing: true)
            return flagged & 0x8080_8080_8080_8080 == 0 ? state : nil
        }
        guard let folded = folded ?? nil else { return false }
        value = folded
        return true
    }

    /// The fold of `bytes` into `state`, and with `testing` a word whose bytes' high bits are set
    /// for bytes outside ASCII or upper case (none when every byte is lower-case ASCII). With
    /// `lowercasing`, the fold of the bytes with ASCII upper-case letters lower-cased, and a word
    /// whose high bits are set for bytes outside ASCII (for which the fold means nothing). Inlined,
    /// so the fold alone carries neither.
    @inline(__always)
    private static func fold(
        _ bytes: UnsafeRawBufferPointer, into state: UInt64, testing: Bool, lowercasing: Bool = false
    ) -> (state: UInt64, flagged: UInt64) {
        var state = mix(state ^ UInt64(truncatingIfNeeded: bytes.count), multiplier)
        var flagged: UInt64 = 0
        func test(_ word: UInt64) -> UInt64 {
            // Sums of bytes from 0x80 up may carry into the next byte's case test; such words are
            // flagged by their own high bits anyway.
            if testing { flagged |= word | word.asciiUpperCaseBits }
            if lowercasing {
                flagged |= word
                return word.asciiLowercased
            }
            return word
        }
        var index = 0
        while index + 8 <= bytes.count {
            let word = test(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            state = mix(state ^ word, multiplier)
            index += 8
        }
        guard index < bytes.count else { return (state, flagged) }
        // The last bytes: as the word that ends the string when there is one (overlapping bytes
        // already folded, which the length mixed in first keeps unambiguous), else one by one
        // (zero bytes above them pass the tests).
        var tail: UInt64 = 0
        if bytes.count >= 8 {
            tail = bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        } else {
            for byte in bytes.reversed() { tail = tail << 8 | UInt64(byte) }
        }
        tail = test(tail)
        return (mix(state ^ tail, finisher), flagged)
    }
}

/// A key that hands the standard library's tables its ``KeyDigest`` instead of its bytes: `Hasher`
/// combines only the eight-byte digest, and the tables' own probe (`_rawHashValue(seed:)`, the
/// `Hashable` requirement they call) skips `Hasher` altogether. Equality stays the key's own, byte
/// for byte.
protocol DigestHashable: Hashable {
    /// The digest of everything `==` compares.
    var digest: KeyDigest { get }
}

extension DigestHashable {
    func hash(into hasher: inout Hasher) { hasher.combine(digest.value) }

    func _rawHashValue(seed: Int) -> Int { digest.hashValue(seed: seed) }
}
