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

/// A JSON object whose members keep the order they were parsed or added in.
///
/// Setting a key that exists replaces its value in place; setting `nil` removes the member (the same
/// rule as `NSMutableDictionary` subscripting, which the Apple libraries rely on to drop fields).
/// A parsed object with a repeated key keeps the last value, at the first key's position.
/// Equality ignores member order.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// A member: its key and value.
    public typealias Element = (key: String, value: JSONValue)

    private var members: [Element] = []
    /// Positions by key, kept only for large objects: small ones (every cache entry) are searched
    /// linearly, which is faster than hashing their keys and makes removal cheap.
    private var index: [String: Int]?

    /// Objects with more members than this keep an index.
    package static let indexThreshold = 16

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        // Comparing lengths first skips most members without a string comparison.
        let count = key.utf8.count
        return members.firstIndex { $0.key.utf8.count == count && $0.key == key }
    }

    /// An empty object.
    public init() {}

    /// An object with these members, in this order; a repeated key keeps its last value.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        for (key, value) in members { self[key] = value }
    }

    /// An object with these members, in this order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys, in order.
    public var keys: [String] { members.map(\.key) }

    /// The value for `key`; assigning `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let newValue, index != nil {
                // One hash of the key: large objects are the maps of a whole cache (an entry per
                // token, or per account in account metadata), built a member at a time.
                if let existing = index!.updateValue(members.count, forKey: key) {
                    index![key] = existing
                    members[existing].value = newValue
                } else {
                    members.append((key, newValue))
                }
            } else if let newValue {
                if let position = position(of: key) {
                    members[position].value = newValue
                } else {
                    members.append((key, newValue))
                    if members.count > Self.indexThreshold {
                        index = Dictionary(members.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
                    }
                }
            } else if let position = position(of: key) {
                members.remove(at: position)
                if index != nil {
                    index![key] = nil
                    for i in position..<members.count { index![members[i].key] = i }
                }
            }
        }
    }

    /// Removes the member for `key` and returns its value.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        let value = self[key]
        self[key] = nil
        return value
    }

    /// The position of the member for `key`, if any (for readers that take members one by one).
    package func memberPosition(of key: String) -> Int? {
        position(of: key)
    }

    /// The value of the member at `position`.
    package func memberValue(at position: Int) -> JSONValue {
        members[position].value
    }

    /// The object without the members whose positions `isTaken` picks, in the same order.
    package func removingMembers(where isTaken: (Int) -> Bool) -> JSONObject {
        var result = JSONObject()
        result.members.reserveCapacity(members.count)
        for (position, member) in members.enumerated() where !isTaken(position) { result.members.append(member) }
        if result.members.count > Self.indexThreshold {
            result.index = Dictionary(result.members.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return result
    }

    /// Iterates the members in order.
    public func makeIterator() -> IndexingIterator<[Element]> {
        members.makeIterator()
    }

    /// The members sorted by the UTF-8 bytes of their keys.
    public var sortedMembers: [Element] {
        // Every payload this module writes is sorted on the way out; objects read back from a
        // sorted payload are in order already, and a pass of comparisons is cheaper than a sort.
        if members.indices.dropFirst().allSatisfy({ Self.keyPrecedes(members[$0 - 1].key, members[$0].key) }) {
            return members
        }
        return members.sorted { Self.keyPrecedes($0.key, $1.key) }
    }

    /// Whether `first` comes before `second` by their UTF-8 bytes: one `memcmp` on native strings
    /// (comparing the generic UTF-8 views byte by byte was a tenth of writing a payload).
    static func keyPrecedes(_ first: String, _ second: String) -> Bool {
        let compared = first.utf8.withContiguousStorageIfAvailable { a in
            second.utf8.withContiguousStorageIfAvailable { b -> Bool in
                let common = Swift.min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
        return (compared ?? nil) ?? first.utf8.lexicographicallyPrecedes(second.utf8)
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: a commutative sum of per-member hashes.
        var sum = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            sum = sum &+ memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(sum)
    }
}
