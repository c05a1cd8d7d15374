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

extension IndexingScanner {
    /// The account members, in ``Account``'s order; `authority_type` first.
    private static let accountNames: [[UInt8]] = [
        Account.Field.authorityType, Account.Field.homeAccountId, Account.Field.environment, Account.Field.realm,
        Account.Field.localAccountId, Account.Field.username, Account.Field.givenName, Account.Field.middleName,
        Account.Field.familyName, Account.Field.name, Account.Field.clientInfo, Account.Field.alternativeAccountId,
    ].map { Array($0.utf8) }

    /// The account in `data`, read in one pass without a JSON tree, or `nil` when the payload is not
    /// one this scanner reads: the same payloads as ``credential(_:typeHint:)`` reads (one flat
    /// object, known members plain strings given once), and at most 16 unknown members, none given
    /// twice. An account's unknown members are kept (``Account/additionalFields``), in order.
    ///
    /// Everything it reads, the full read (``Account/init(jsonObject:)``) reads to an equal account
    /// (tests and the `unified-item` fuzz target hold the two to that): accounts are read whole
    /// whenever a cache is, and the general reader spent most of its time building the tree.
    static func account(_ data: Data) -> Account? {
        data.withUnsafeBytes { raw -> Account? in
            withUnsafeTemporaryAllocation(of: Range<Int>?.self, capacity: accountNames.count) { slots -> Account? in
                slots.initialize(repeating: nil)
                var unknown: [(key: Range<Int>, value: FlatValue)] = []
                let read = walkFlatObject(raw) { key, value in
                    if let slot = slot(in: accountNames, raw, key) {
                        guard slots[slot] == nil, case .string(let range) = value else { return false }
                        slots[slot] = range
                        return true
                    }
                    // A repeated unknown member keeps its last value in its first place in the full
                    // read; rare enough to leave to it. So are many unknown members: the search for a
                    // repeat is linear, and the full read indexes large objects' keys, so a crafted
                    // payload cannot make an open quadratic.
                    guard unknown.count < JSONObject.indexThreshold,
                        !unknown.contains(where: { same(raw, $0.key, key) })
                    else { return false }
                    unknown.append((key, value))
                    return true
                }
                guard read else { return nil }
                func text(_ slot: Int) -> String? {
                    slots[slot].map { String(decoding: UnsafeRawBufferPointer(rebasing: raw[$0]), as: UTF8.self) }
                }
                guard let typeName = text(0), let type = AccountType(jsonString: typeName), type != .other else { return nil }
                var additional = JSONObject()
                for (key, value) in unknown {
                    let name = String(decoding: UnsafeRawBufferPointer(rebasing: raw[key]), as: UTF8.self)
                    switch value {
                    case .string(let range): additional[name] = .string(String(decoding: UnsafeRawBufferPointer(rebasing: raw[range]), as: UTF8.self))
                    case .number(let range):
                        additional[name] = .number(JSONNumber(validatedText: String(decoding: UnsafeRawBufferPointer(rebasing: raw[range]), as: UTF8.self)))
                    case .bool(let flag): additional[name] = .bool(flag)
                    case .null: additional[name] = .null
                    }
                }
                return Account(
                    authorityType: type, homeAccountId: text(1), environment: text(2), realm: text(3), localAccountId: text(4),
                    username: text(5), givenName: text(6), middleName: text(7), familyName: text(8), name: text(9),
                    clientInfo: text(10), alternativeAccountId: text(11), additionalFields: additional)
            }
        }
    }

    private static func same(_ bytes: UnsafeRawBufferPointer, _ first: Range<Int>, _ second: Range<Int>) -> Bool {
        first.count == second.count && memcmp(bytes.baseAddress! + first.lowerBound, bytes.baseAddress! + second.lowerBound, first.count) == 0
    }
}
