import CacheStore
import Foundation
import TestSupport
import Testing

import TokenCacheJSON
@testable import TokenCacheSchema

/// The one-pass account reader (`IndexingScanner.account`) against the full read: whatever the
/// scanner reads, the full read reads to an equal account (known fields and unknown members, in
/// order); whatever it declines goes to the full read, which `UnifiedItem` then uses.
@Suite struct AccountScannerTests {
    static let stringMembers = [
        "home_account_id", "environment", "realm", "local_account_id", "username", "given_name", "middle_name",
        "family_name", "name", "client_info", "alternative_account_id",
    ]

    /// A random account payload in the shape writers store, with now and then something only the
    /// full read takes (an escape, a number, a nested value, a repeated member, a trailing comma, …).
    static func payload(_ generator: inout SplitMix64) -> Data {
        func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &generator)! }
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &generator) < percent }
        var members: [(String, String)] = []
        if chance(95) {
            let types = ["\"MSSTS\"", "\"AAD\"", "\"MSA\"", "\"ADFS\"", "\"mssts\"", "\"Other\"", "\"Unknown\"", "\"\"", "3", "null"]
            members.append(("authority_type", chance(85) ? pick(Array(types.prefix(5))) : pick(types)))
        }
        for name in stringMembers where chance(50) {
            let values = [
                "\"9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca\"", "\"login.microsoftonline.com\"",
                "\"user@contoso.com\"", "\"\"", "\"  \"", "\"Mixed CASE Value\"",
                "\"\\u0041 escaped\"", "\"a \\\"quote\\\"\"", "\"é\"", "12", "null", "true", "{}", "[\"x\"]",
            ]
            members.append((name, chance(85) ? pick(Array(values.prefix(6))) : pick(values)))
        }
        for index in 0..<Int.random(in: 0...3, using: &generator) {
            let values = ["\"extra\"", "1795438059", "-1.5e3", "true", "false", "null", "\"\"", "0", "{\"nested\":1}", "[]", "01", "\"\\n\""]
            members.append((pick(["account_source", "last_modification_time", "x_\(index)"]), chance(80) ? pick(Array(values.prefix(8))) : pick(values)))
        }
        return JSONPayloadMutation.object(members, using: &generator)
    }

    static func item(_ data: Data) -> StoreItem {
        StoreItem(accessGroup: "g", account: "home-login.windows.net", service: "realm", type: 1003, data: data)
    }

    /// Checks one payload; returns whether the scanner read it.
    @discardableResult
    static func expectAgreement(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let text = String(decoding: data.prefix(300), as: UTF8.self)
        let full = Result { try Account(storeItem: item(data)) }
        // What UnifiedItem answers (the scanner first) is always the full read's answer.
        switch (full, Result { try UnifiedItem(item(data)) }) {
        case (.success(let account), .success(.account(let unified))):
            #expect(unified == account, "\(text)", sourceLocation: sourceLocation)
        case (.failure(let expected), .failure(let found)):
            #expect("\(found)" == "\(expected)", "\(text)", sourceLocation: sourceLocation)
        case (let expected, let found):
            Issue.record("UnifiedItem answered \(found), the full read \(expected): \(text)", sourceLocation: sourceLocation)
        }
        guard let scanned = IndexingScanner.account(data) else { return false }
        switch full {
        case .success(let account):
            #expect(scanned == account, "\(text)", sourceLocation: sourceLocation)
            #expect(Array(scanned.additionalFields.map(\.key)) == Array(account.additionalFields.map(\.key)), "\(text)", sourceLocation: sourceLocation)
        case .failure(let error):
            Issue.record("the scanner read a payload the full read rejects (\(error)): \(text)", sourceLocation: sourceLocation)
        }
        return true
    }

    @Test func readsWhatTheFullReadReadsOnRandomPayloads() {
        var generator = SplitMix64(seed: 0xACC0)
        var read = 0
        for _ in 0..<20_000 {
            if Self.expectAgreement(Self.payload(&generator)) { read += 1 }
        }
        #expect(read > 5_000, "the scanner read \(read) of 20,000 payloads")
    }

    @Test func readsWhatTheFullReadReadsOnCorruptedPayloads() {
        var generator = SplitMix64(seed: 0xBADACC)
        var read = 0
        for round in 0..<20_000 {
            let bytes = JSONPayloadMutation.corrupted([UInt8](Self.payload(&generator)), round: round, using: &generator)
            if Self.expectAgreement(Data(bytes)) { read += 1 }
        }
        #expect(read > 1_000, "the scanner read \(read) corrupted payloads")
    }

    /// Accounts as MSAL Python, MSAL.NET and MSAL ObjC store them take the fast path.
    @Test func readsTheAccountsWritersStore() throws {
        let payloads = [
            #"{"authority_type":"MSSTS","client_info":"eyJ1aWQiOiJ1In0","environment":"login.microsoftonline.com","home_account_id":"uid.utid","local_account_id":"uid","realm":"utid","username":"user@contoso.com","account_source":"authorization_code"}"#,
            #"{"home_account_id":"uid.utid","environment":"login.windows.net","realm":"utid","local_account_id":"uid","username":"User@Contoso.com","authority_type":"MSSTS","name":"A User","given_name":"A","family_name":"User","last_modification_time":"1700000000"}"#,
            #"{"authority_type": "AAD", "home_account_id": "h", "environment": "login.microsoftonline.com", "realm": "common", "x_flag": true, "x_count": 3, "x_none": null}"#,
        ]
        for text in payloads {
            #expect(Self.expectAgreement(Data(text.utf8)), "\(text.prefix(60))")
        }
        let scanned = try #require(IndexingScanner.account(Data(payloads[0].utf8)))
        #expect(scanned.authorityType == .mssts && scanned.username == "user@contoso.com" && scanned.realm == "utid")
        #expect(scanned.additionalFields["account_source"] == .string("authorization_code"))
        let unknown = try #require(IndexingScanner.account(Data(payloads[2].utf8)))
        #expect(Array(unknown.additionalFields.map(\.key)) == ["x_flag", "x_count", "x_none"])
        #expect(unknown.additionalFields["x_count"] == .number(JSONNumber(3)))
    }

    /// The scanner's search for a repeated unknown member is linear: it reads at most 16 and leaves
    /// larger objects to the full read, which indexes their keys (a stored payload may be crafted).
    @Test func leavesManyUnknownMembersToTheFullRead() throws {
        func payload(unknown: Int) -> Data {
            Data(("{\"authority_type\":\"MSSTS\"" + (0..<unknown).map { ",\"x\($0)\":\($0)" }.joined() + "}").utf8)
        }
        #expect(IndexingScanner.account(payload(unknown: 16))?.additionalFields.count == 16)
        #expect(IndexingScanner.account(payload(unknown: 17)) == nil)
        Self.expectAgreement(payload(unknown: 17))
        let large = payload(unknown: 5_000)
        #expect(IndexingScanner.account(large) == nil)
        guard case .account(let account) = try UnifiedItem(Self.item(large)) else { Issue.record("not an account"); return }
        #expect(account.additionalFields.count == 5_000)
    }

    @Test func declinesWhatOnlyTheFullReadTakes() {
        let base = #"{"authority_type":"MSSTS","home_account_id":"h","username":"u","x":"1"}"#
        #expect(IndexingScanner.account(Data(base.utf8)) != nil)
        for variant in [
            base.replacingOccurrences(of: "\"u\"", with: "\"\\u0075\""),  // an escape
            base.replacingOccurrences(of: "\"h\"", with: "7"),  // a number where a string is known
            base.replacingOccurrences(of: "\"h\"", with: "null"),  // null where a string is known
            base.replacingOccurrences(of: "}", with: ",}"),  // a trailing comma
            base.replacingOccurrences(of: "}", with: ",\"username\":\"v\"}"),  // a repeated known member
            base.replacingOccurrences(of: "}", with: ",\"x\":\"2\"}"),  // a repeated unknown member
            base.replacingOccurrences(of: "}", with: ",\"y\":{}}"),  // a nested value
            base.replacingOccurrences(of: "\"u\"", with: "\"é\""),  // non-ASCII
            base.replacingOccurrences(of: "MSSTS", with: "Other"),  // rejected by the full read
            base.replacingOccurrences(of: "\"authority_type\":\"MSSTS\",", with: ""),  // no authority type
            "\u{FEFF}" + base,
        ] {
            #expect(IndexingScanner.account(Data(variant.utf8)) == nil, "\(variant)")
            Self.expectAgreement(Data(variant.utf8))
        }
    }
}
