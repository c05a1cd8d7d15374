import CacheStore
import Foundation
import TestSupport
import Testing

import TokenCacheJSON
@_spi(Indexing) @testable import TokenCacheSchema

/// `Credential(indexing:)` builds only what an index compares, and must accept and reject exactly
/// the items `Credential(storeItem:)` does, reading the same values for every indexed field.
@Suite struct IndexingReadTests {
    /// What an index reads from a credential.
    struct Indexed: Equatable, CustomStringConvertible {
        let credential: Credential

        static func == (lhs: Indexed, rhs: Indexed) -> Bool { lhs.description == rhs.description }

        var description: String {
            let c = credential
            return [
                "\(c.credentialType)", c.clientId, c.homeAccountId, c.environment, c.realm, c.target, c.familyId,
                c.cachedAt.map(String.init), c.expiresOn.map(String.init), c.extendedExpiresOn.map(String.init),
                c.refreshOn.map(String.init), c.tokenType, c.keyId, c.requestedClaims, c.applicationIdentifier,
                c.extCacheKey, "\(c.isTombstone)",
            ].map { $0 ?? "nil" }.joined(separator: "|")
        }
    }

    static func item(_ payload: Data, type: UInt32 = 2001) -> StoreItem {
        StoreItem(accessGroup: "g", account: "home-login.windows.net", service: "accesstoken-client-realm-scope", type: type, data: payload)
    }

    /// Both reads accept or both reject; when they accept, the indexed fields agree.
    static func expectAgreement(_ payload: Data, type: UInt32 = 2001, _ comment: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        let item = item(payload, type: type)
        let full = Result { () throws(SchemaError) in try Credential(storeItem: item) }
        let partial = Result { () throws(SchemaError) in try Credential(indexing: item) }
        switch (full, partial) {
        case (.success(let full), .success(let partial)):
            #expect(Indexed(credential: full) == Indexed(credential: partial), "\(comment())", sourceLocation: sourceLocation)
        case (.failure, .failure):
            break
        case (.success, .failure(let error)):
            Issue.record("only the partial read rejects (\(error)): \(comment())", sourceLocation: sourceLocation)
        case (.failure(let error), .success):
            Issue.record("only the full read rejects (\(error)): \(comment())", sourceLocation: sourceLocation)
        }
    }

    static let longSecret = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9." + String(repeating: "s", count: 300)

    /// A payload with `members` (raw JSON values) in order.
    static func payload(_ members: [(String, String)]) -> Data {
        Data(("{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}").utf8)
    }

    static let base: [(String, String)] = [
        ("credential_type", "\"AccessToken\""),
        ("secret", "\"\(longSecret)\""),
        ("home_account_id", "\"9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca\""),
        ("environment", "\"login.windows.net\""),
        ("client_id", "\"b6c69a37-df96-4db0-9088-2ab96e1d8215\""),
        ("realm", "\"f645ad92-e38d-4d1a-b510-d1b09a74a8ca\""),
        ("target", "\"User.Read Mail.Read openid profile\""),
        ("cached_at", "\"1700000000\""),
        ("expires_on", "\"1700003600\""),
        ("extended_expires_on", "\"1700007200\""),
        ("client_info", "\"eyJ1aWQiOiI5ZjQ4ODBkOCIsInV0aWQiOiJmNjQ1YWQ5MiJ9\""),
        ("x_unknown_member", "{\"nested\":[\"\(String(repeating: "n", count: 40))\",1,null]}"),
    ]

    /// Values of every kind, and the strings that test each rule of a string or timestamp field.
    static let values: [String] = [
        "\"short\"", "\"\(String(repeating: "x", count: 40))\"", "\"\"", "\"   \"", "123", "1.5e3", "-7", "0", "1e400",
        "null", "true", "false", "[]", "[1,\"two\",{\"three\":[]}]", "{}", "{\"a\":{\"b\":[null]}}",
        "\" 1700000000 \"", "\"1700000000.9\"", "\"+17\"", "\"-5\"", "\"abc\"", "\"1e400\"", "\"12345678901234567890\"",
        "\"<tombstone>\"", "\"\\u003ctombstone>\"", "\"Bearer\"", "\"pop\"",
        "\"\\u0041\\u00e9\\ud83d\\ude00 long enough to be left unbuilt\"", "\"\\ud800 a lone surrogate in a long string\"",
        "\"a bad escape \\x in a long string\"", "\"a tab\tinside a long string value\"", "\"é and ü in a long string value\"",
        "\"unterminated", "tru", "[1,]", "{\"a\":1,}", "[1 2]", "01", "-", "\"\\u12\"",
    ]

    /// Every known member, and an unknown one.
    static let members: [String] = [
        "credential_type", "client_id", "secret", "home_account_id", "environment", "realm", "target", "family_id",
        "cached_at", "expires_on", "extended_expires_on", "ext_expires_on", "refresh_on", "token_type", "kid", "key_id",
        "keyid", "requested_claims", "enrollment_id", "application_cache_identifier", "redirect_uri", "spe_info",
        "client_info", "user_assertion_hash", "x_unknown_member", "another_unknown",
    ]

    @Test func agreesWhenEachMemberHoldsEachKindOfValue() {
        for member in Self.members {
            for value in Self.values {
                var members = Self.base.filter { $0.0 != member }
                members.insert((member, value), at: 1)
                Self.expectAgreement(Self.payload(members), "\(member): \(value)")
                // The same value as a repeated member: the last one counts, for both reads.
                Self.expectAgreement(Self.payload(Self.base + [(member, value)]), "repeated \(member): \(value)")
            }
        }
    }

    @Test func agreesOnInvalidUTF8InEveryPlace() {
        let bad: [UInt8] = [0xC3, 0x28, 0xFF, 0xED, 0xA0, 0x80]
        for member in Self.members {
            for (position, byte) in bad.enumerated() {
                let value = Data("\"\(String(repeating: "v", count: position * 7))".utf8) + Data([byte]) + Data("tail of the value\"".utf8)
                let rest = Self.base.filter { $0.0 != member }.map { ",\"\($0.0)\":\($0.1)" }.joined()
                let data = Data("{\"\(member)\":".utf8) + value + Data((rest + "}").utf8)
                Self.expectAgreement(data, "\(member) with byte \(byte)")
            }
        }
    }

    @Test func agreesOnEveryTruncationAndOnDocumentVariants() {
        let document = Self.payload(Self.base)
        for length in 0...document.count {
            Self.expectAgreement(document.prefix(length), "first \(length) bytes")
        }
        let text = String(decoding: document, as: UTF8.self)
        let variants = [
            "\u{FEFF}" + text,
            text.replacingOccurrences(of: "}", with: ",}"),
            text.replacingOccurrences(of: ",", with: " ,\n\t"),
            text.replacingOccurrences(of: "\"secret\"", with: "\"s\\u0065cret\""),
            text.replacingOccurrences(of: "\"credential_type\"", with: "\"credential\\u005ftype\""),
            text + " ", text + "x", "[" + text + "]", "\"\(text.count)\"", "{}", "", "null",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
            "{\"secret\":" + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
        ]
        for variant in variants {
            Self.expectAgreement(Data(variant.utf8), variant.prefix(80) + "…")
        }
        // Without credential_type the item's type decides; a type that is not a credential fails both.
        let untyped = Self.payload(Self.base.filter { $0.0 != "credential_type" })
        for type: UInt32 in [2001, 2002, 2003, 2008, 1003, 3001] {
            Self.expectAgreement(untyped, type: type, "type \(type)")
        }
    }

    @Test func agreesOnRandomlyCorruptedPayloads() {
        var generator = SplitMix64(seed: 0x5EED)
        let document = [UInt8](Self.payload(Self.base))
        let alphabet = Array("{}[]\",:\\ 0123456789-+.eEtrufalsn\u{7F}".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
        for round in 0..<4000 {
            var bytes = document
            for _ in 0..<(1 + round % 4) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch round % 3 {
                case 0: bytes[position] = alphabet.randomElement(using: &generator)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                }
            }
            Self.expectAgreement(Data(bytes), "round \(round): \(String(decoding: bytes, as: UTF8.self).prefix(120))")
        }
    }

    @Test func agreesOnEveryFixtureCredential() throws {
        let files = [
            "msal-dotnet/ExpectedTokenCache.json", "msal-dotnet/MultiCloudTokenCache.json",
        ]
        var checked = 0
        for file in files {
            guard let data = try? Data(contentsOf: Fixtures.url(file)), let root = try JSONValue.parse(data).objectValue else { continue }
            for (section, type) in [("AccessToken", UInt32(2001)), ("RefreshToken", 2002), ("IdToken", 2003)] {
                for (_, entry) in root[section]?.objectValue ?? JSONObject() {
                    Self.expectAgreement(JSONValue.object(try #require(entry.objectValue)).serialized(), type: type, "\(file) \(section)")
                    checked += 1
                }
            }
        }
        #expect(checked > 0)
    }

    @Test func buildsOnlyWhatAnIndexCompares() throws {
        let credential = try Credential(indexing: Self.item(Self.payload(Self.base)))
        // Placeholders of the same kind: the long secret and client info, the unknown object.
        #expect(credential.secret == "")
        #expect(credential.clientInfo == "")
        #expect(credential.additionalFields["x_unknown_member"] == .object(JSONObject()))
        #expect(credential.target == "User.Read Mail.Read openid profile")
        #expect(credential.expiresOn == 1_700_003_600)
        let full = try Credential(storeItem: Self.item(Self.payload(Self.base)))
        #expect(full.secret == Self.longSecret)
    }

    @Test func keepsShortSecretsSoTombstonesAreRecognized() throws {
        for secret in ["\"<tombstone>\"", "\"\\u003ctombstone\\u003e\""] {
            let members = Self.base.map { $0.0 == "secret" ? ($0.0, secret) : $0 }
            #expect(try Credential(indexing: Self.item(Self.payload(members))).isTombstone)
        }
    }
}

/// The partial parse accepts, rejects and reads exactly as the full one, but for placeholders.
@Suite struct PartialJSONParseTests {
    /// `value` with the root members outside `built` replaced as the partial parse replaces them.
    static func placeholders(_ value: JSONValue, built: Set<String>) -> JSONValue {
        guard case .object(let object) = value else { return value }
        var result = JSONObject()
        for (key, member) in object {
            guard !built.contains(key) else {
                result[key] = member
                continue
            }
            switch member {
            case .string(let text) where text.utf8.count > 15: result[key] = .string("")
            case .object: result[key] = .object(JSONObject())
            case .array: result[key] = .array([])
            default: result[key] = member
            }
        }
        return .object(result)
    }

    @Test func randomDocumentsParseAlike() {
        var generator = SplitMix64(seed: 42)
        let pieces = [
            "{", "}", "[", "]", ",", ":", " ", "\"k\"", "\"key\"", "\"a long string value here\"", "\"\\n\\u00e9\\/\"", "1",
            "-2.5e3", "true", "null", "\"x\"", "\"\\u", "\\", "\u{1}", "\"é long non-ascii value\"",
        ]
        for round in 0..<20_000 {
            var text = "{"
            for _ in 0..<Int.random(in: 0...14, using: &generator) { text += pieces.randomElement(using: &generator)! }
            if round % 2 == 0 { text += "}" }
            let data = Data(text.utf8)
            let built: Set<String> = round % 3 == 0 ? [] : ["k"]
            let full = Result { () throws(JSONParseError) in try JSONParser.parse(data, allowTrailingCommas: true) }
            let partial = Result { () throws(JSONParseError) in
                try JSONParser.parse(data, allowTrailingCommas: true, buildingRootMembers: built)
            }
            switch (full, partial) {
            case (.success(let full), .success(let partial)):
                #expect(Self.placeholders(full, built: built) == partial, "\(text)")
            case (.failure(let full), .failure(let partial)):
                #expect("\(full)" == "\(partial)", "\(text)")
            default:
                Issue.record("the parses disagree on \(text)")
            }
        }
    }
}
