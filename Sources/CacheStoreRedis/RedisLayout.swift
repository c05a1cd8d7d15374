@_spi(Hex) import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The store's keys in Redis (documented in docs/redis.md, which an operator reads to inspect them):
///
/// - `PREFIX:p:{PID}` — a hash holding one partition: the items of one (access group, account).
///   Fields `.group`, `.account` (the partition's attributes, readable) and `.rev` (its revision);
///   then one field per item, named `TYPE|SERVICE` (`-|SERVICE` for an item without a type), whose
///   value is the item's record (``RedisRecord``). `PID` is the first 16 bytes of
///   SHA-256(len(group) group len(account) account), in hex; as the hash tag it keeps the partition
///   in one cluster slot.
/// - `PREFIX:g:GID:SSS` — the group index: per access group, 512 sets (`SSS`, three hex digits
///   `000`–`1ff`, from the PID's first three hex digits mod 512) of the PIDs it holds (`GID` the same
///   digest of the group alone), so full reads find every partition and no set outgrows about 1 MB
///   at millions of partitions.
/// - `PREFIX:rev` — a counter incremented by every partition commit: the store's change revision.
/// - `PREFIX:l:GID:NNN` — the lookup-key index of a group, in 4,096 hashes (`NNN`, three hex digits
///   of the key's digest): field = lookup key, value = a JSON array of the account attributes of the
///   partitions carrying it. A partition's own keys are its `.keys` field (a JSON array).
/// - `PREFIX:lc:GID` — present once the group's lookup keys are complete.
///
/// Stores written before the index was sharded hold one set `PREFIX:g:GID` and 64 hashes
/// `PREFIX:l:GID:NN` (the *legacy* index): readers merge them in, writers remove from them but
/// never add to them, and a prune empties them.
struct RedisLayout: Sendable {
    let prefix: String

    /// The partition of (group, account): its id and hash key.
    struct Partition: Hashable, Sendable {
        let group: String
        let account: String
        let id: String
        let key: Data
    }

    func partition(group: String, account: String) -> Partition {
        let id = Self.digest([Data(group.utf8), Data(account.utf8)])
        return Partition(group: group, account: account, id: id, key: partitionKey(id: id))
    }

    func partitionKey(id: String) -> Data { Data("\(prefix):p:{\(id)}".utf8) }

    /// The group-index set listing partition `id` of `group` (one of ``groupIndexShards``).
    func groupIndexKey(group: String, partitionID id: String) -> Data {
        let shard = (Int(id.prefix(3), radix: 16) ?? 0) % Self.groupIndexShards
        return Data("\(prefix):g:\(Self.digest([Data(group.utf8)])):\(Self.hex3(shard))".utf8)
    }

    /// Every group-index set of `group`: the shards, then the legacy single set.
    func groupIndexKeys(group: String) -> [Data] {
        let digest = Self.digest([Data(group.utf8)])
        return (0..<Self.groupIndexShards).map { Data("\(prefix):g:\(digest):\(Self.hex3($0))".utf8) } + [legacyGroupIndexKey(group)]
    }

    /// The single group-index set of the legacy layout.
    func legacyGroupIndexKey(_ group: String) -> Data { Data("\(prefix):g:\(Self.digest([Data(group.utf8)]))".utf8) }

    var revisionKey: Data { Data("\(prefix):rev".utf8) }

    /// The index hash holding `lookupKey` for `group` (one of ``lookupBuckets`` per group, spread over the cluster).
    func lookupBucketKey(group: String, lookupKey: String) -> Data {
        let bucket = (Int(Self.digest([Data(lookupKey.utf8)]).prefix(3), radix: 16) ?? 0) % Self.lookupBuckets
        return Data("\(prefix):l:\(Self.digest([Data(group.utf8)])):\(Self.hex3(bucket))".utf8)
    }

    /// The legacy layout's index hash for `lookupKey` (one of 64, named by two hex digits).
    func legacyLookupBucketKey(group: String, lookupKey: String) -> Data {
        let bucket = (Int(Self.digest([Data(lookupKey.utf8)]).prefix(2), radix: 16) ?? 0) % Self.legacyLookupBuckets
        return Data("\(prefix):l:\(Self.digest([Data(group.utf8)])):\(lowercaseHex([UInt8(bucket)]))".utf8)
    }

    /// Every index hash of `group`'s lookup keys: the buckets, then the legacy layout's 64.
    func lookupBucketKeys(group: String) -> [Data] {
        let digest = Self.digest([Data(group.utf8)])
        return (0..<Self.lookupBuckets).map { Data("\(prefix):l:\(digest):\(Self.hex3($0))".utf8) } + legacyLookupBucketKeys(group: group)
    }

    /// The legacy layout's 64 index hashes of `group`.
    func legacyLookupBucketKeys(group: String) -> [Data] {
        let digest = Self.digest([Data(group.utf8)])
        return (0..<Self.legacyLookupBuckets).map { Data("\(prefix):l:\(digest):\(lowercaseHex([UInt8($0)]))".utf8) }
    }

    /// The key present once `group`'s lookup-key index is complete.
    func lookupCompleteKey(_ group: String) -> Data { Data("\(prefix):lc:\(Self.digest([Data(group.utf8)]))".utf8) }

    /// Sets per group index: 4,000,000 partitions of one group make sets of at most about 650 KB
    /// (docs/redis.md); one pipeline reads them all.
    static let groupIndexShards = 512
    /// Hashes per group's lookup-key index: 4,000,000 usernames make hashes of at most about 250 KB.
    static let lookupBuckets = 4096
    static let legacyLookupBuckets = 64

    /// `n` as three lowercase hex digits.
    private static func hex3(_ n: Int) -> String {
        let digits = String(n, radix: 16)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    /// The prefix of every partition hash's key (what the change log records).
    var partitionKeyPrefix: Data { Data("\(prefix):p:".utf8) }

    /// The prefix of every key the store writes (what tracking broadcasts are filtered on).
    var keyPrefix: String { prefix + ":" }

    /// The hash field of an item: `TYPE|SERVICE`, or `-|SERVICE` without a type.
    static func field(type: UInt32?, service: String) -> Data {
        Data(((type.map { String($0) } ?? "-") + "|" + service).utf8)
    }

    /// The type and service a field names, or nil for a metadata field (`.rev`, …) or a foreign one.
    static func parseField(_ field: Data) -> (type: UInt32?, service: String)? {
        guard let bar = field.firstIndex(of: UInt8(ascii: "|")) else { return nil }
        let head = String(decoding: field[field.startIndex..<bar], as: UTF8.self)
        let service = String(decoding: field[(bar + 1)...], as: UTF8.self)
        if head == "-" { return (nil, service) }
        guard let type = UInt32(head) else { return nil }
        return (type, service)
    }

    static let groupField = Data(".group".utf8)
    static let accountField = Data(".account".utf8)
    static let revisionField = Data(".rev".utf8)
    static let lookupKeysField = Data(".keys".utf8)

    private static func digest(_ parts: [Data]) -> String {
        var hasher = SHA256()
        for part in parts {
            withUnsafeBytes(of: UInt32(part.count).bigEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: part)
        }
        return lowercaseHex(hasher.finalize().prefix(16))
    }
}

/// The value of an item's hash field: everything but its identity, in a compact versioned form.
///
/// Layout (integers big-endian): version `1`; order (8 bytes: the store-wide insertion order);
/// generic (flag byte, then 4-byte length and bytes when present); created and modified (IEEE 754
/// bit patterns of seconds since 2001-01-01, 8 bytes each); payload kind (`0` as given, `1` sealed
/// in a ``PayloadEnvelope``); the payload to the end.
enum RedisRecord {
    struct Decoded {
        var order: UInt64
        var generic: Data?
        var created: Date
        var modified: Date
        var sealed: Bool
        var payload: Data
    }

    static func encode(order: UInt64, generic: Data?, created: Date, modified: Date, sealed: Bool, payload: Data) -> Data {
        // Written in place into one buffer of the exact size (appending each part to a `Data`, and
        // each number through an array of its own, cost more than sealing the payload).
        let size = 1 + 8 + 1 + (generic.map { 4 + $0.count } ?? 0) + 8 + 8 + 1 + payload.count
        var out = Data(count: size)
        out.withUnsafeMutableBytes { raw in
            var offset = 0
            func byte(_ value: UInt8) {
                raw[offset] = value
                offset += 1
            }
            func number<T: FixedWidthInteger>(_ value: T) {
                raw.storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
                offset += MemoryLayout<T>.size
            }
            func bytes(_ data: Data) {
                data.withUnsafeBytes { source in
                    if let base = source.baseAddress { (raw.baseAddress! + offset).copyMemory(from: base, byteCount: source.count) }
                }
                offset += data.count
            }
            byte(1)
            number(order)
            if let generic {
                byte(1)
                number(UInt32(generic.count))
                bytes(generic)
            } else {
                byte(0)
            }
            number(created.timeIntervalSinceReferenceDate.bitPattern)
            number(modified.timeIntervalSinceReferenceDate.bitPattern)
            byte(sealed ? 1 : 0)
            bytes(payload)
        }
        return out
    }

    static func decode(_ data: Data) -> Decoded? {
        let bytes = [UInt8](data)
        var offset = 0
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }
        func u64() -> UInt64? { take(8).map { $0.reduce(0) { $0 << 8 | UInt64($1) } } }
        guard take(1)?.first == 1, let order = u64(), let flag = take(1)?.first else { return nil }
        var generic: Data?
        if flag == 1 {
            guard let length = take(4).map({ $0.reduce(0) { $0 << 8 | Int($1) } }), let value = take(length) else { return nil }
            generic = Data(value)
        } else if flag != 0 {
            return nil
        }
        guard let created = u64(), let modified = u64(), let kind = take(1)?.first, kind <= 1 else { return nil }
        return Decoded(
            order: order, generic: generic,
            created: Date(timeIntervalSinceReferenceDate: Double(bitPattern: created)),
            modified: Date(timeIntervalSinceReferenceDate: Double(bitPattern: modified)),
            sealed: kind == 1, payload: Data(bytes[offset...]))
    }
}
