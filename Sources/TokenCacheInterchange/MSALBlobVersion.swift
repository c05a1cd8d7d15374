import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// What a blob held when it was handed out: for each item, a hash of its identity and a digest of
/// its MSAL JSON entry. Written as an opaque string (`1.` then Base64URL of 16-byte records), so a
/// version needs no state in the library and is valid in any process.
struct MSALBlobVersion: Sendable, Equatable {
    var digests: [UInt64: UInt64] = [:]

    static func identityHash(_ identity: ItemIdentity) -> UInt64 {
        hash(Data("\(identity.account)\u{1F}\(identity.service)\u{1F}\(identity.type.map(String.init) ?? "-")".utf8))
    }

    static func entryDigest(_ entry: JSONObject) -> UInt64 {
        hash(JSONValue.object(entry).serialized(sortingKeys: true))
    }

    /// The digest of content already in canonical form (an unknown node's stored JSON).
    static func digest(_ data: Data) -> UInt64 { hash(data) }

    private static func hash(_ data: Data) -> UInt64 {
        SHA256.hash(data: data).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    var text: String {
        var bytes = Data(capacity: digests.count * 16)
        for (key, digest) in digests.sorted(by: { $0.key < $1.key }) {
            withUnsafeBytes(of: key.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: digest.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return "1." + Base64URL.encode(bytes)
    }

    init() {}

    init(parsing text: String) throws(InterchangeError) {
        let invalid = InterchangeError.invalidStructure(
            source: "the version", path: "version", reason: "is not a version tokencache handed out")
        guard text.hasPrefix("1.") else { throw invalid }
        guard let bytes = Base64URL.decode(String(text.dropFirst(2))), bytes.count % 16 == 0 else { throw invalid }
        let array = [UInt8](bytes)
        for start in stride(from: 0, to: array.count, by: 16) {
            func word(_ offset: Int) -> UInt64 {
                array[(start + offset)..<(start + offset + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
            }
            digests[word(0)] = word(8)
        }
    }
}
