@_spi(Hex) import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One item of a partition and its place in the store's insertion order.
struct PartitionEntry: Sendable {
    var item: StoreItem
    /// Orders items across partitions as they were first added (a nanosecond clock, kept increasing).
    var order: UInt64
}

/// Which partition an item belongs to: its access group and `account` attribute, compared as bytes.
struct PartitionKey: Hashable, Sendable {
    let group: Data
    let account: Data

    init(group: String, account: String) {
        self.group = Data(group.utf8)
        self.account = Data(account.utf8)
    }

    init(_ item: StoreItem) { self.init(group: item.accessGroup, account: item.account) }

    var groupString: String { String(decoding: group, as: UTF8.self) }
    var accountString: String { String(decoding: account, as: UTF8.self) }

    /// An exact, attribute-safe name for the partition: hex SHA-256 of the length-prefixed group and account.
    ///
    /// D-Bus strings cannot hold NUL, so the readable `account` attribute may be lossy; this one keeps
    /// two partitions whose readable attributes look alike from replacing each other.
    var digest: String {
        var hasher = SHA256()
        for part in [group, account] {
            hasher.update(data: withUnsafeBytes(of: UInt32(part.count).bigEndian, Array.init))
            hasher.update(data: part)
        }
        return lowercaseHex(hasher.finalize())
    }
}

/// The secret of a partition item: every store item of one (access group, account), all attributes
/// and dates included, in a compact versioned binary form.
///
/// Layout (all integers big-endian): magic `TCP` and version `1`; the group and account (4-byte
/// length + UTF-8); the item count (4 bytes); then per item: order (8), service (length + UTF-8),
/// generic (flag byte, then length + bytes when present), type (flag byte, then 4 bytes when
/// present), created and modified (IEEE 754 bit patterns of seconds since 2001-01-01, 8 each),
/// data (length + bytes).
enum PartitionCodec {
    static let magic = Data("TCP".utf8) + Data([1])

    /// A revision of the partition's content: an HMAC of its encoded form under `key`.
    static func revision(_ partition: PartitionKey, _ entries: [PartitionEntry], key: SymmetricKey) -> ChangeStamp {
        var encoded = encode(partition, entries)
        defer { encoded.resetBytes(in: 0..<encoded.count) }
        let code = Array(HMAC<SHA256>.authenticationCode(for: encoded, using: key))
        let words = stride(from: 0, to: 16, by: 8).map { start in code[start..<start + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        return ChangeStamp(words[0], words[1])
    }

    static func encode(_ key: PartitionKey, _ entries: [PartitionEntry]) -> Data {
        var out = magic
        out.reserveCapacity(64 + entries.reduce(0) { $0 + $1.item.data.count + $1.item.service.utf8.count + 64 })
        func u32(_ value: Int) { out.append(contentsOf: withUnsafeBytes(of: UInt32(value).bigEndian, Array.init)) }
        func u64(_ value: UInt64) { out.append(contentsOf: withUnsafeBytes(of: value.bigEndian, Array.init)) }
        func bytes(_ value: Data) { u32(value.count); out.append(value) }
        bytes(key.group)
        bytes(key.account)
        u32(entries.count)
        for entry in entries {
            let item = entry.item
            u64(entry.order)
            bytes(Data(item.service.utf8))
            if let generic = item.generic { out.append(1); bytes(generic) } else { out.append(0) }
            if let type = item.type { out.append(1); u32(Int(type)) } else { out.append(0) }
            // Dates as Foundation keeps them (seconds since 2001), so they read back bit for bit.
            u64((item.created ?? Date()).timeIntervalSinceReferenceDate.bitPattern)
            u64((item.modified ?? Date()).timeIntervalSinceReferenceDate.bitPattern)
            bytes(item.data)
        }
        return out
    }

    struct Malformed: Error { let reason: String }

    static func decode(_ data: Data) throws(Malformed) -> (PartitionKey, [PartitionEntry]) {
        var reader = Reader(data: data)
        guard data.count >= 4, data.prefix(3) == magic.prefix(3) else { throw Malformed(reason: "not a tokencache partition") }
        reader.offset = 3
        let version = try reader.byte()
        guard version == 1 else { throw Malformed(reason: "partition format \(version) is newer than this tokencache; upgrade it") }
        let group = try reader.bytes()
        let account = try reader.bytes()
        let key = PartitionKey(group: String(decoding: group, as: UTF8.self), account: String(decoding: account, as: UTF8.self))
        let count = try reader.u32()
        var entries: [PartitionEntry] = []
        entries.reserveCapacity(min(Int(count), 100_000))
        for _ in 0..<count {
            let order = try reader.u64()
            let service = String(decoding: try reader.bytes(), as: UTF8.self)
            let generic = try reader.byte() == 1 ? try reader.bytes() : nil
            let type = try reader.byte() == 1 ? try reader.u32() : nil
            let created = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.u64()))
            let modified = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.u64()))
            let payload = try reader.bytes()
            entries.append(PartitionEntry(
                item: StoreItem(
                    accessGroup: key.groupString, account: key.accountString, service: service, generic: generic,
                    type: type, data: payload, created: created, modified: modified),
                order: order))
        }
        guard reader.offset == data.count else { throw Malformed(reason: "\(data.count - reader.offset) trailing bytes") }
        return (key, entries)
    }

    private struct Reader {
        let data: Data
        var offset = 0

        mutating func take(_ count: Int) throws(Malformed) -> Data {
            guard count >= 0, data.count - offset >= count else { throw Malformed(reason: "truncated at byte \(offset)") }
            let start = data.startIndex + offset
            offset += count
            return Data(data[start..<(start + count)])
        }
        mutating func byte() throws(Malformed) -> UInt8 { try take(1)[0] }
        mutating func u32() throws(Malformed) -> UInt32 { try take(4).reduce(0) { $0 << 8 | UInt32($1) } }
        mutating func u64() throws(Malformed) -> UInt64 { try take(8).reduce(0) { $0 << 8 | UInt64($1) } }
        mutating func bytes() throws(Malformed) -> Data { try take(Int(try u32())) }
    }
}
