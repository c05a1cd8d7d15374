@_spi(Bytes) import CacheStore
@_spi(Text) import TokenCacheSchema

/// A dictionary keyed by long strings (normalized home account ids, account attributes: 70 bytes
/// and more), hashed through a ``KeyDigest`` and compared as bytes, as the access-token map's key
/// is; a lookup by ``subscript(normalizing:)`` compares ignoring ASCII case instead.
///
/// Opening a cache files every decoded item under such keys, and `String`'s own hashing (SipHash,
/// about seven instructions a byte, again for every key each time a table grows) was two fifths
/// of the index builder's work. Reads and writes take the string, as a `[String: Value]` would.
struct DigestedMap<Value>: Sequence {
    /// A key with its digest, made once per access.
    struct Key: DigestHashable {
        let string: String
        let digest: KeyDigest

        init(_ string: String) {
            self.string = string
            var digest = KeyDigest()
            digest.add(string)
            self.digest = digest
        }

        /// `string` as a probe for its normalized form (``ItemKey/normalized(_:)-swift.type.method``),
        /// when lower-casing is all normalization would do to it: digested as the normalized string,
        /// and equal to a key holding it (see `==`); `nil` otherwise.
        init?(normalizing string: String) {
            var digest = KeyDigest()
            guard digest.addLowercasingASCII(string) else { return nil }
            self.string = string
            self.digest = digest
        }

        // Equal digests with different bytes: a probe made by `init(normalizing:)` meeting its
        // normalized form (the maps' keys are normalized), or a 64-bit collision.
        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.digest == rhs.digest && (sameBytes(lhs.string, rhs.string) || sameBytesIgnoringASCIICase(lhs.string, rhs.string))
        }
    }

    private var storage: [Key: Value] = [:]

    init() {}

    subscript(key: String) -> Value? {
        get { storage[Key(key)] }
        set { storage[Key(key)] = newValue }
    }

    /// The value under `key` normalized, for a map whose keys are normalized: without making the
    /// normalized string when lower-casing is all normalization would do (a username as typed).
    subscript(normalizing key: String) -> Value? {
        if let probe = Key(normalizing: key) { return storage[probe] }
        return storage[Key(ItemKey.normalized(key))]
    }

    /// The value for `key`, changed in place (one hash of the key, no copy of the value).
    subscript(key: String, default defaultValue: @autoclosure () -> Value) -> Value {
        get { storage[Key(key), default: defaultValue()] }
        _modify { yield &storage[Key(key), default: defaultValue()] }
    }

    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: String) -> Value? {
        storage.updateValue(value, forKey: Key(key))
    }

    @discardableResult
    mutating func removeValue(forKey key: String) -> Value? {
        storage.removeValue(forKey: Key(key))
    }

    /// Removes the elements of the list under `key` that match, and the key when none is left (see
    /// `Dictionary.removeAll(under:where:)`).
    mutating func removeAll<Element>(under key: String, where matches: (Element) -> Bool) where Value == [Element] {
        storage.removeAll(under: Key(key), where: matches)
    }

    mutating func reserveCapacity(_ capacity: Int) { storage.reserveCapacity(capacity) }

    var isEmpty: Bool { storage.isEmpty }
    var count: Int { storage.count }
    var keys: [String] { storage.keys.map(\.string) }
    var values: Dictionary<Key, Value>.Values { storage.values }

    func makeIterator() -> Iterator { Iterator(base: storage.makeIterator()) }

    /// The entries, as `(key, value)` pairs, in the table's order.
    struct Iterator: IteratorProtocol {
        fileprivate var base: Dictionary<Key, Value>.Iterator

        mutating func next() -> (key: String, value: Value)? {
            base.next().map { ($0.key.string, $0.value) }
        }
    }
}

extension DigestedMap: Sendable where Value: Sendable {}
extension DigestedMap.Key: Sendable {}

/// Whether two strings have the same UTF-8 bytes but for the case of ASCII letters. Only met after
/// equal digests, so once per lookup that found its key through ``DigestedMap/Key/init(normalizing:)``:
/// compared eight bytes at a time, lower-cased as ``ItemKey`` normalization lower-cases them.
func sameBytesIgnoringASCIICase(_ first: String, _ second: String) -> Bool {
    let count = first.utf8.count
    guard second.utf8.count == count else { return false }
    let compared = first.utf8.withContiguousStorageIfAvailable { a in
        second.utf8.withContiguousStorageIfAvailable { b -> Bool in
            let a = UnsafeRawBufferPointer(a), b = UnsafeRawBufferPointer(b)
            var index = 0
            while index + 8 <= count {
                let x = a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let y = b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if x != y {
                    // Bytes from 0x80 up: compared one by one below.
                    guard (x | y) & 0x8080_8080_8080_8080 == 0 else { break }
                    guard x.asciiLowercased == y.asciiLowercased else { return false }
                }
                index += 8
            }
            while index < count {
                guard a[index].asciiLowercased == b[index].asciiLowercased else { return false }
                index += 1
            }
            return true
        }
    }
    return (compared ?? nil) ?? zip(first.utf8, second.utf8).allSatisfy { $0.asciiLowercased == $1.asciiLowercased }
}
