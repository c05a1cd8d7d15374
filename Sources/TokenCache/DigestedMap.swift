@_spi(Bytes) import CacheStore

/// A dictionary keyed by long strings (normalized home account ids, account attributes: 70 bytes
/// and more), hashed through a ``KeyDigest`` and compared as bytes, as the access-token map's key
/// is.
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

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.digest == rhs.digest && sameBytes(lhs.string, rhs.string) }
    }

    private var storage: [Key: Value] = [:]

    init() {}

    subscript(key: String) -> Value? {
        get { storage[Key(key)] }
        set { storage[Key(key)] = newValue }
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
