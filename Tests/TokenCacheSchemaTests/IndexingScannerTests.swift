import CacheStore
import Foundation
import TestSupport
import Testing

@_spi(Indexing) @testable import TokenCacheSchema

/// The fast path of `Credential(indexing:)` (`IndexingScanner`) against the full decoder: whatever
/// the scanner reads, the full read accepts with the same indexed fields; whatever it declines is
/// left to the general reader (`IndexingReadTests` holds that one to the full read).
@Suite struct IndexingScannerTests {
    typealias Indexed = IndexingReadTests.Indexed

    static let types: [(UInt32, String)] = [
        (2001, "AccessToken"), (2002, "RefreshToken"), (2003, "IdToken"), (2007, "AccessToken_With_AuthScheme"),
        (2008, "FamilyRefreshToken"), (2009, "BoundRefreshToken"), (2006, "V1IdToken"), (2000, "Password"),
    ]
    static let stringMembers = [
        "client_id", "home_account_id", "environment", "realm", "target", "family_id", "token_type", "kid", "key_id",
        "keyid", "requested_claims", "application_cache_identifier", "enrollment_id", "redirect_uri", "spe_info",
        "client_info", "user_assertion_hash", "ext_cache_key",
    ]
    static let timestampMembers = ["cached_at", "expires_on", "extended_expires_on", "ext_expires_on", "refresh_on"]

    /// A random payload in the shape writers store, with now and then something only the general
    /// reader takes (an escape, a number, a nested value, a repeated member, a trailing comma, …).
    static func payload(_ generator: inout SplitMix64) -> (Data, type: UInt32) {
        func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &generator)! }
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &generator) < percent }
        let (type, typeName) = pick(types)
        var members: [(String, String)] = []
        if chance(90) {
            members.append(("credential_type", "\"\(chance(10) ? typeName.uppercased() : chance(5) ? "Unknown_Kind" : typeName)\""))
        }
        if chance(95) {
            members.append(("secret", pick(["\"<tombstone>\"", "\"short\"", "\"\"", "\"at-seed-12-00000001\"", "\"\(String(repeating: "s", count: 300))\""])))
        }
        for name in stringMembers where chance(40) {
            let values = [
                "\"9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca\"", "\"login.microsoftonline.com\"",
                "\"User.Read Mail.Read  openid\"", "\"Bearer\"", "\"pop\"", "\"\"", "\"  \"", "\"1\"", "\"Mixed CASE Value\"",
                "\"\\u0041 escaped\"", "\"a \\\"quote\\\"\"", "\"é\"", "12", "null", "true", "{}", "[\"x\"]",
            ]
            members.append((name, chance(85) ? pick(Array(values.prefix(9))) : pick(values)))
        }
        for name in timestampMembers where chance(50) {
            let values = [
                "\"1700000000\"", "\"0\"", "\"253402300799\"", "\"253402300800\"", "\"999999999999999999\"",
                "\"1234567890123456789\"", "\"\"", "\" 17 \"", "\"1.5\"", "\"-5\"", "\"abc\"", "1700000000", "null",
            ]
            members.append((name, chance(80) ? pick(Array(values.prefix(3))) : pick(values)))
        }
        for index in 0..<Int.random(in: 0...3, using: &generator) {
            let values = ["\"extra\"", "1795438059", "-1.5e3", "true", "false", "null", "\"\"", "{\"nested\":1}", "[]", "01", "\"\\n\""]
            members.append(("x_unknown_\(index)", chance(80) ? pick(Array(values.prefix(7))) : pick(values)))
        }
        return (JSONPayloadMutation.object(members, using: &generator), type)
    }

    static func item(_ data: Data, type: UInt32) -> StoreItem {
        StoreItem(accessGroup: "g", account: "home-login.windows.net", service: "credential-client-realm-", type: type, data: data)
    }

    /// Checks one payload; returns whether the scanner read it.
    @discardableResult
    static func expectAgreement(_ data: Data, type: UInt32, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let scanned = IndexingScanner.credential(data, typeHint: CredentialType(typeCode: type)!) else { return false }
        let text = String(decoding: data.prefix(200), as: UTF8.self)
        do {
            let full = try Credential(storeItem: item(data, type: type))
            #expect(Indexed(credential: full) == Indexed(credential: scanned), "\(text)", sourceLocation: sourceLocation)
            #expect(full.isTombstone == scanned.isTombstone, "\(text)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("the scanner read a payload the full read rejects (\(error)): \(text)", sourceLocation: sourceLocation)
        }
        return true
    }

    @Test func readsWhatTheFullReadReadsOnRandomPayloads() {
        var generator = SplitMix64(seed: 0xC0FFEE)
        var read = 0
        for _ in 0..<20_000 {
            let (data, type) = Self.payload(&generator)
            if Self.expectAgreement(data, type: type) { read += 1 }
        }
        // Most generated payloads are the plain kind the scanner exists for; so is the test.
        #expect(read > 4_000, "the scanner read \(read) of 20,000 payloads")
    }

    @Test func readsWhatTheFullReadReadsOnCorruptedPayloads() {
        var generator = SplitMix64(seed: 0xBAD)
        var read = 0
        for round in 0..<20_000 {
            var (data, type) = Self.payload(&generator)
            data = Data(JSONPayloadMutation.corrupted([UInt8](data), round: round, using: &generator))
            if Self.expectAgreement(data, type: type) { read += 1 }
            // And `Credential(indexing:)` as a whole (scanner, then the general reader) agrees with the full read.
            IndexingReadTests.expectAgreement(data, type: type, "round \(round)")
        }
        #expect(read > 1_000, "the scanner read \(read) corrupted payloads")
    }

    /// The payloads of the benchmark's cache (MSAL Python's entries as stored) take the fast path.
    @Test func readsMSALPythonEntries() {
        let home = "00001388-0000-4000-8000-000000001388.72f988bf-86f1-41af-91ab-2d7cd011db47"
        let client = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
        let payloads: [(UInt32, String)] = [
            (2001, #"{"cached_at":"1795439088","client_id":"\#(client)","credential_type":"AccessToken","environment":"login.microsoftonline.com","expires_on":"1795525488","extended_expires_on":"1795525488","home_account_id":"\#(home)","realm":"organizations","secret":"at-seed-43334-00001388","target":"Calendars.Read Contacts.Read"}"#),
            (2002, #"{"client_id":"\#(client)","credential_type":"RefreshToken","environment":"login.microsoftonline.com","home_account_id":"\#(home)","last_modification_time":"1795439088","secret":"rt-seed-43342-00001388","target":"User.Read"}"#),
            (2003, #"{"client_id":"\#(client)","credential_type":"IdToken","environment":"login.microsoftonline.com","home_account_id":"\#(home)","realm":"organizations","secret":"eyJhbGciOiAibm9uZSJ9.eyJ0aWQiOiAiNzIifQ.sig"}"#),
        ]
        for (type, text) in payloads {
            #expect(Self.expectAgreement(Data(text.utf8), type: type), "\(text.prefix(60))")
        }
        let scanned = IndexingScanner.credential(Data(payloads[0].1.utf8), typeHint: .accessToken)
        #expect(scanned?.target == "Calendars.Read Contacts.Read")
        #expect(scanned?.expiresOn == 1_795_525_488)
        #expect(scanned?.realm == "organizations")
    }

    @Test func declinesWhatOnlyTheGeneralReaderTakes() {
        let base = #"{"credential_type":"AccessToken","secret":"s","home_account_id":"h","cached_at":"1"}"#
        #expect(IndexingScanner.credential(Data(base.utf8), typeHint: .accessToken) != nil)
        for variant in [
            base.replacingOccurrences(of: "\"s\"", with: "\"\\u0073\""),  // an escape
            base.replacingOccurrences(of: "\"1\"", with: "1"),  // a number timestamp
            base.replacingOccurrences(of: "\"1\"", with: "\" 1\""),  // a timestamp with a space
            base.replacingOccurrences(of: "}", with: ",}"),  // a trailing comma
            base.replacingOccurrences(of: "}", with: ",\"secret\":\"t\"}"),  // a repeated known member
            base.replacingOccurrences(of: "}", with: ",\"x\":{}}"),  // a nested value
            base.replacingOccurrences(of: "\"h\"", with: "\"é\""),  // non-ASCII
            base.replacingOccurrences(of: "\"secret\":\"s\",", with: ""),  // no secret
            "\u{FEFF}" + base,
        ] {
            #expect(IndexingScanner.credential(Data(variant.utf8), typeHint: .accessToken) == nil, "\(variant)")
            Self.expectAgreement(Data(variant.utf8), type: 2001)
        }
    }
}
