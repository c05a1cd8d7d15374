import CacheStore
import Foundation
import TestSupport
import Testing
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

/// What an import writes, the engine can read: for random inputs of every importable shape, every
/// item the import produces decodes again (`decode(encode(x))`).
@Suite struct WrittenReadsBackPropertyTests {
    /// Every item must decode as what it claims to be: a legacy ADAL archive, or a unified item.
    static func expectReadable(_ items: [StoreItem], seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation) {
        for item in items {
            do {
                if item.generic == LegacyCacheKey.generic {
                    _ = try LegacyTokenCacheItem(archive: item.data)
                } else {
                    _ = try UnifiedItem(item)
                }
            } catch {
                Issue.record("seed \(seed): \(item.service) was written but does not read back: \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    static func text(_ random: inout SplitMix64) -> String {
        let pieces = ["$null", "a", "É", "\u{0}", "\u{9B}", "\u{202E}", "😀", " ", "e\u{301}", "<tombstone>", "1e300", "-"]
        return (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    /// Claims nested `depth` deep (an array in an object in an array …), with odd strings and numbers.
    static func claims(depth: Int, _ random: inout SplitMix64) -> JSONObject {
        var value: JSONValue = .string(Self.text(&random))
        for level in 0..<depth {
            value = level % 2 == 0 ? .array([value, .number(JSONNumber(Int64.random(in: .min ... .max, using: &random)))]) : .object(["k": value])
        }
        return ["upn": .string("user\(Self.text(&random))@contoso.com"), "tid": "t", "oid": "o", "deep": value]
    }

    static func idToken(_ claims: JSONObject) -> String {
        func part(_ object: JSONObject) -> String {
            JSONValue.object(object).serialized(sortingKeys: true).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return part(["typ": "JWT"]) + "." + part(claims) + "."
    }

    @Test func adalNetV3EntriesReadBackAfterImport() throws {
        for seed in UInt64(0)..<40 {
            var random = SplitMix64(seed: seed)
            let depths = [0, 1, 5, 60, 120, 126, 130, 200, 300, 500]
            let depth = depths[Int(seed) % depths.count]
            let clientInfo = JSONValue.object(["uid": "u", "utid": "t"]).serialized(sortingKeys: true).base64EncodedString()
            let milliseconds = [Int64(1_455_218_790_065), .max, .min, 0, 253_402_300_800_000].randomElement(using: &random)!
            let value: JSONObject = [
                "RefreshToken": .string("rt" + Self.text(&random)),
                "RawClientInfo": .string(clientInfo),
                "Result": [
                    "AccessToken": .string("at" + Self.text(&random)),
                    "ExpiresOn": ["DateTime": .string("/Date(\(milliseconds))/"), "OffsetMinutes": 0],
                    "IdToken": .string(Self.idToken(Self.claims(depth: depth, &random))),
                    "UserInfo": ["DisplayableId": .string("user" + Self.text(&random)), "UniqueId": .string(Self.text(&random))],
                ],
            ]
            let entry = ADALNetV3Blob.Entry(
                authority: "https://login.microsoftonline.com/" + Self.text(&random), resource: "r" + Self.text(&random),
                clientId: "c" + Self.text(&random), subjectType: 0, value: value)
            let data = ADALNetV3Blob.write([entry])
            guard let decoded = try? ImportDecoder.decode(data, source: "v3", accessGroup: group) else { continue }
            Self.expectReadable(decoded.items, seed: seed)
        }
    }

    @Test func msalJSONEntriesReadBackAfterImport() throws {
        for seed in UInt64(0)..<60 {
            var random = SplitMix64(seed: seed)
            let timestamps = ["1700000000", "9223372036854775807", "-62135596800", "253402300799", "1e300", "\(Self.text(&random))"]
            var entry: JSONObject = [
                "credential_type": "RefreshToken", "secret": .string("s" + Self.text(&random)),
                "home_account_id": .string("u.t" + Self.text(&random)), "environment": .string("login." + Self.text(&random)),
                "client_id": .string("c" + Self.text(&random)),
                "cached_at": .string(timestamps.randomElement(using: &random)!),
            ]
            if Bool.random(using: &random) { entry["extra"] = .object(Self.claims(depth: Int.random(in: 0...600, using: &random), &random)) }
            let document: JSONObject = ["RefreshToken": .object(["k" + Self.text(&random): .object(entry)])]
            let data = JSONValue.object(document).serialized(sortingKeys: true)
            guard let decoded = try? ImportDecoder.decode(data, source: "msal", accessGroup: group) else { continue }
            Self.expectReadable(decoded.items, seed: seed)
        }
    }

    /// An ADAL v3 entry whose ID token claims nest as deep as JSON may (64 levels), and one whose
    /// claims nest 300 deep: both archives read back with their token. Before, the archive's
    /// `allClaims` nested past the reader's limit and the token was lost; claims past the JSON
    /// limit are not read at all (the token is kept).
    @Test func deeplyNestedClaimsDoNotMakeAnUnreadableArchive() throws {
        var random = SplitMix64(seed: 300)
        for (depth, readable) in [(62, true), (300, false)] {
            let item = LegacyTokenCacheItem(
                authority: "https://login.microsoftonline.com/common", clientId: "c", refreshToken: "rt",
                rawIdToken: Self.idToken(Self.claims(depth: depth, &random)))
            let read = try LegacyTokenCacheItem(archive: item.archiveData)
            #expect(read.refreshToken == "rt")
            #expect((read.idTokenClaims?["upn"] != nil) == readable, "depth \(depth)")
        }
    }
}
