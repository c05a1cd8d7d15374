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
import TokenCacheJSON

/// The fast path of ``Credential/init(indexing:)``: one pass over the payload bytes that reads the
/// fields an index compares straight into a ``Credential``, building no JSON tree.
///
/// It reads the payloads every writer stores — one flat object of plain strings — and declines
/// (`nil`) anything else: a byte-order mark, an escape, a non-ASCII or control byte in a string, a
/// nested object or array, a trailing comma, a known member that is repeated, not a string, or an
/// unrecognized `credential_type`, a timestamp that is not plain digits within ``UnixTime/range``,
/// a missing `secret`. Everything it accepts is valid JSON that the full read accepts with the same
/// indexed fields (tests and the `unified-item` fuzz target hold the two to that); everything it
/// declines goes to the general reader, which accepts or reports it exactly as before.
enum IndexingScanner {
    /// The members the scanner knows, by slot.
    private static let names: [[UInt8]] = [
        Credential.Field.credentialType, Credential.Field.secret, Credential.Field.clientId, Credential.Field.homeAccountId,
        Credential.Field.environment, Credential.Field.realm, Credential.Field.target, Credential.Field.familyId,
        Credential.Field.cachedAt, Credential.Field.expiresOn, Credential.Field.extendedExpiresOn,
        Credential.Field.extendedExpiresOnLegacy, Credential.Field.refreshOn, Credential.Field.tokenType, Credential.Field.keyId,
        Credential.Field.keyIdSnakeCase, Credential.Field.keyIdGo, Credential.Field.requestedClaims,
        Credential.Field.applicationIdentifier, Credential.Field.extCacheKey,
        // Known but not indexed: only checked to be strings.
        Credential.Field.enrollmentId, Credential.Field.redirectUri, Credential.Field.speInfo, Credential.Field.clientInfo,
        Credential.Field.userAssertionHash,
    ].map { Array($0.utf8) }

    private enum Slot {
        static let credentialType = 0, secret = 1, clientId = 2, homeAccountId = 3, environment = 4, realm = 5
        static let target = 6, familyId = 7, cachedAt = 8, expiresOn = 9, extendedExpiresOn = 10, extExpiresOn = 11
        static let refreshOn = 12, tokenType = 13, kid = 14, keyIdSnake = 15, keyIdGo = 16, requestedClaims = 17
        static let applicationIdentifier = 18, extCacheKey = 19
    }

    /// Lower-case `credential_type` names, as ``CredentialType/init(jsonString:)`` compares them.
    private static let typeNames: [(CredentialType, [UInt8])] = CredentialType.allCases.map { ($0, Array($0.keyString.utf8)) }

    /// The credential in `data` with its indexed fields (see ``Credential/init(indexing:)``), or
    /// `nil` when the payload is not one this scanner reads.
    static func credential(_ data: Data, typeHint: CredentialType) -> Credential? {
        var none: StringInterner? = nil
        return credential(data, typeHint: typeHint, interner: &none)
    }

    /// With an `interner`, the strings read (not the secret) are shared with the payloads it read before.
    static func credential(_ data: Data, typeHint: CredentialType, interner: inout StringInterner?) -> Credential? {
        data.withUnsafeBytes { raw in
            withUnsafeTemporaryAllocation(of: Range<Int>?.self, capacity: names.count) { slots in
                slots.initialize(repeating: nil)
                guard scan(raw, into: slots) else { return nil }
                return credential(raw, slots, typeHint: typeHint, interner: &interner)
            }
        }
    }

    /// Checks the document and records where each known member's string value is.
    private static func scan(_ bytes: UnsafeRawBufferPointer, into slots: UnsafeMutableBufferPointer<Range<Int>?>) -> Bool {
        walkFlatObject(bytes) { key, value in
            guard let slot = self.slot(in: names, bytes, key) else { return true }
            // A known member: a string, given once.
            guard slots[slot] == nil, case .string(let range) = value else { return false }
            slots[slot] = range
            return true
        }
    }

    /// A member's value in a flat object (see ``walkFlatObject(_:_:)``).
    enum FlatValue {
        /// A string without escapes: the bytes between its quotes.
        case string(Range<Int>)
        /// A number: its bytes, valid JSON number syntax.
        case number(Range<Int>)
        case bool(Bool)
        case null
    }

    /// Walks one JSON object of plain members, handing each member's key (the bytes between its
    /// quotes) and value to `member`, in order; `false` when the document is anything else (see the
    /// type's comment) or `member` declines one.
    @inline(__always)
    static func walkFlatObject(_ bytes: UnsafeRawBufferPointer, _ member: (Range<Int>, FlatValue) -> Bool) -> Bool {
        let count = bytes.count
        var position = 0
        func skipWhitespace() {
            while position < count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }
        /// Reads a plain string at `position` (its opening quote); `nil` for anything else.
        func string() -> Range<Int>? {
            guard position < count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            let start = position + 1
            let end = jsonPlainRunEnd(bytes, from: start)
            guard end < count, bytes[end] == UInt8(ascii: "\"") else { return nil }
            position = end + 1
            return start..<end
        }
        func literal(_ text: StaticString) -> Bool {
            let length = text.utf8CodeUnitCount
            guard count - position >= length, memcmp(bytes.baseAddress! + position, text.utf8Start, length) == 0 else { return false }
            position += length
            return true
        }
        skipWhitespace()
        guard position < count, bytes[position] == UInt8(ascii: "{") else { return false }
        position += 1
        skipWhitespace()
        guard position < count, bytes[position] != UInt8(ascii: "}") else { return false }
        while true {
            skipWhitespace()
            guard let key = string() else { return false }
            skipWhitespace()
            guard position < count, bytes[position] == UInt8(ascii: ":") else { return false }
            position += 1
            skipWhitespace()
            guard position < count else { return false }
            let value: FlatValue
            switch bytes[position] {
            case UInt8(ascii: "\""):
                guard let range = string() else { return false }
                value = .string(range)
            case UInt8(ascii: "t"):
                guard literal("true") else { return false }
                value = .bool(true)
            case UInt8(ascii: "f"):
                guard literal("false") else { return false }
                value = .bool(false)
            case UInt8(ascii: "n"):
                guard literal("null") else { return false }
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let rest = UnsafeBufferPointer(rebasing: bytes.assumingMemoryBound(to: UInt8.self)[position...])
                var length = 0
                guard JSONNumber.scan(rest, &length) else { return false }
                value = .number(position..<(position + length))
                position += length
            default:
                return false
            }
            guard member(key, value) else { return false }
            skipWhitespace()
            guard position < count else { return false }
            let next = bytes[position]
            position += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { return false }
        }
        skipWhitespace()
        return position == count
    }

    /// The position in `names` of the member name `key` (a range of `bytes`).
    static func slot(in names: [[UInt8]], _ bytes: UnsafeRawBufferPointer, _ key: Range<Int>) -> Int? {
        let length = key.count
        for (slot, name) in names.enumerated() where name.count == length {
            if name.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress! + key.lowerBound, length) }) == 0 { return slot }
        }
        return nil
    }

    /// Builds the credential from the recorded members; `nil` where the general reader must decide.
    private static func credential(
        _ bytes: UnsafeRawBufferPointer, _ slots: UnsafeMutableBufferPointer<Range<Int>?>, typeHint: CredentialType,
        interner: inout StringInterner?
    ) -> Credential? {
        func text(_ slot: Int) -> String? {
            guard let range = slots[slot] else { return nil }
            let value = UnsafeRawBufferPointer(rebasing: bytes[range])
            if interner != nil { return interner!.string(value) }
            return String(decoding: value, as: UTF8.self)
        }
        /// `.some(nil)` when absent; `nil` when present but not plain digits within range.
        func timestamp(_ slot: Int) -> Int64?? {
            guard let range = slots[slot] else { return .some(nil) }
            guard !range.isEmpty, range.count <= 18 else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return UnixTime.range.contains(value) ? .some(value) : nil
        }
        guard let secretRange = slots[Slot.secret] else { return nil }
        var kind = typeHint
        if let range = slots[Slot.credentialType] {
            let name = UnsafeRawBufferPointer(rebasing: bytes[range])
            guard let match = typeNames.first(where: { $0.1.count == name.count && zip($0.1, name).allSatisfy { $0 == $1.asciiLowercased } })
            else { return nil }
            kind = match.0
        }
        guard let cachedAt = timestamp(Slot.cachedAt), let expiresOn = timestamp(Slot.expiresOn),
            let extended = timestamp(Slot.extendedExpiresOn), let legacyExtended = timestamp(Slot.extExpiresOn),
            let refreshOn = timestamp(Slot.refreshOn)
        else { return nil }
        // As the full read: the secret is kept when short (a tombstone's is), as its placeholder otherwise.
        let secret = secretRange.count <= 15 ? String(decoding: UnsafeRawBufferPointer(rebasing: bytes[secretRange]), as: UTF8.self) : ""
        return Credential(
            credentialType: kind, secret: secret, clientId: text(Slot.clientId), homeAccountId: text(Slot.homeAccountId),
            environment: text(Slot.environment), realm: text(Slot.realm), target: text(Slot.target), familyId: text(Slot.familyId),
            cachedAt: cachedAt, expiresOn: expiresOn,
            extendedExpiresOn: extended == nil || extended == 0 ? legacyExtended ?? extended : extended,
            refreshOn: refreshOn, tokenType: text(Slot.tokenType),
            keyId: text(Slot.kid) ?? text(Slot.keyIdSnake) ?? text(Slot.keyIdGo), requestedClaims: text(Slot.requestedClaims),
            applicationIdentifier: text(Slot.applicationIdentifier), extCacheKey: text(Slot.extCacheKey))
    }
}
