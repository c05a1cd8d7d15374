import CacheStore
import CacheStoreMemory
import Foundation
import TestSupport
import Testing

import TokenCacheJSON
@testable import TokenCacheSchema

@Suite struct UnifiedItemTests {
    static let group = "com.microsoft.adalcache"

    @Test func recognizesEachUnifiedKindByTypeCode() throws {
        let credential = Credential(credentialType: .idToken, secret: "jwt", clientId: "c", homeAccountId: "u.t", environment: "e", realm: "r")
        let account = Account(authorityType: .mssts, homeAccountId: "u.t", environment: "e", realm: "r", username: "a@b")
        let appMetadata = AppMetadata(clientId: "c", environment: "e", familyId: "1")
        var accountMetadata = AccountMetadata(clientId: "c")
        accountMetadata.setSignInState(.signedIn, homeAccountId: "u.t")

        #expect(try UnifiedItem(credential.storeItem(accessGroup: Self.group)) == .credential(credential))
        #expect(try UnifiedItem(account.storeItem(accessGroup: Self.group)) == .account(account))
        #expect(try UnifiedItem(appMetadata.storeItem(accessGroup: Self.group)) == .appMetadata(appMetadata))
        #expect(try UnifiedItem(accountMetadata.storeItem(accessGroup: Self.group)) == .accountMetadata(accountMetadata))
    }

    @Test func accountsUnderAnyAccountCodeDecode() throws {
        // MSAL.NET stores every account as 1003, whatever its authority_type.
        let item = StoreItem(accessGroup: Self.group, account: "u.t-e", service: "", generic: Data("a@b".utf8), type: 1003,
                             data: Data(#"{"authority_type":"ADFS","home_account_id":"u.t","environment":"e"}"#.utf8))
        guard case .account(let account) = try UnifiedItem(item) else { Issue.record("not an account"); return }
        #expect(account.authorityType == .adfs)
    }

    @Test func otherResidentsOfTheGroupAreRecognizedWithoutReadingThem() throws {
        let adalArchive = try Data(contentsOf: Fixtures.url("adal-objc/adal1x-keychain-item.bplist"))
        let legacy = StoreItem(
            accessGroup: Self.group, account: "bXlmYWtldXNlckBjb250b3NvLmNvbQ",
            service: "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg|PHJlc291cmNlPg|MjdhZDgzYzktZmMwNS00YTZjLWFmMDEtMzZlZGE0MmVkMTgw",
            generic: Data("MSOpenTech.ADAL.1".utf8), data: adalArchive)
        #expect(try UnifiedItem(legacy) == .other(.legacyADAL))
        let wipe = StoreItem(accessGroup: Self.group, account: "TokenWipe", service: "", generic: Data("Microsoft.ADAL.WipeAll.1".utf8), data: Data([0x62]))
        #expect(try UnifiedItem(wipe) == .other(.wipeInfo))
        let frtSwitch = StoreItem(accessGroup: Self.group, account: "useSingleFRT", service: "useSingleFRT", data: Data(#"{"use_single_frt":true}"#.utf8))
        #expect(try UnifiedItem(frtSwitch) == .other(.singleFRTSwitch))
        let throttling = StoreItem(accessGroup: Self.group, account: "com.microsoft.identity.throttling.metadata", service: "Ver1", data: Data("{}".utf8))
        #expect(try UnifiedItem(throttling) == .other(.unknown))
        let general = StoreItem(accessGroup: Self.group, account: "a", service: "s", type: 3000, data: Data("not json".utf8))
        #expect(try UnifiedItem(general) == .other(.unknown))
        #expect(UnifiedItem.other(.unknown).key == nil)
    }

    @Test func base64URLOfTheLegacyServiceParts() {
        // The legacy service above, rebuilt from its parts (fixture README).
        #expect(Base64URL.encode("https://login.microsoftonline.com/common") == "aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg")
        #expect(Base64URL.encode("<resource>") == "PHJlc291cmNlPg")
        #expect(Base64URL.encode("27ad83c9-fc05-4a6c-af01-36eda42ed180") == "MjdhZDgzYzktZmMwNS00YTZjLWFmMDEtMzZlZGE0MmVkMTgw")
    }

    @Test func decodesBOMAndAppleEscapedPayloads() throws {
        var data = Data([0xEF, 0xBB, 0xBF])
        data.append(Data(#"{"credential_type":"AccessToken","secret":"s","target":"https:\/\/graph.microsoft.com\/.default","realm":"r","client_id":"c","home_account_id":"u.t","environment":"e"}"#.utf8))
        let item = StoreItem(accessGroup: Self.group, account: "u.t-e", service: "x", generic: nil, type: 2001, data: data)
        guard case .credential(let credential) = try UnifiedItem(item) else { Issue.record("not a credential"); return }
        #expect(credential.target == "https://graph.microsoft.com/.default")
        #expect(credential.key.service == "accesstoken-c-r-https://graph.microsoft.com/.default")
        #expect(credential.jsonData.utf8String.contains(#""target":"https://graph.microsoft.com/.default""#))
    }

    // MARK: - Malformed payloads

    static let secret = "SECRET-eyJhbGciOiJSUzI1NiJ9-VALUE"

    static func item(type: UInt32, data: String) -> StoreItem {
        StoreItem(accessGroup: group, account: "uid.utid-login.microsoftonline.com", service: "accesstoken-cid-tid-user.read",
                  generic: Data("accesstoken-cid-tid".utf8), type: type, data: Data(data.utf8))
    }

    static let malformed: [(name: String, type: UInt32, data: String, field: String?)] = [
        ("not JSON", 2001, "\(secret)", nil),
        ("truncated", 2001, #"{"credential_type":"AccessToken","secret":"\#(secret)","target":"user.re"#, nil),
        ("not an object", 2001, #"["\#(secret)"]"#, nil),
        ("string root", 2002, #""\#(secret)""#, nil),
        ("missing secret", 2002, #"{"credential_type":"RefreshToken","client_id":"cid","refresh":"x"}"#, "secret"),
        ("secret not a string", 2002, #"{"credential_type":"RefreshToken","secret":{"v":"\#(secret)"}}"#, "secret"),
        ("bad timestamp", 2001, #"{"credential_type":"AccessToken","secret":"\#(secret)","expires_on":"\#(secret)"}"#, "expires_on"),
        ("account Other", 1003, #"{"authority_type":"Other","home_account_id":"u.t","username":"\#(secret)"}"#, "authority_type"),
        ("account without type", 1003, #"{"home_account_id":"u.t","client_info":"\#(secret)"}"#, "authority_type"),
        ("app metadata family array", 3001, #"{"client_id":"c","family_id":["\#(secret)"]}"#, "family_id"),
        ("account metadata not object", 5001, #"{"client_id":"c","account_metadata_map":"\#(secret)"}"#, "account_metadata_map"),
    ]

    @Test(arguments: 0..<malformed.count)
    func malformedPayloadErrorNamesTheItemAndHidesTheSecret(_ index: Int) {
        let (name, type, data, field) = Self.malformed[index]
        let item = Self.item(type: type, data: data)
        do {
            let decoded = try UnifiedItem(item)
            Issue.record("\(name): decoded as \(decoded)")
        } catch {
            #expect(error.item == ItemReference(item), "\(name)")
            let message = error.description
            #expect(message.contains("type \(type)"), "\(name): \(message)")
            #expect(message.contains("account 'uid.utid-login.microsoftonline.com'"), "\(name): \(message)")
            #expect(message.contains("service 'accesstoken-cid-tid-user.read'"), "\(name): \(message)")
            if let field { #expect(message.contains("'\(field)'"), "\(name): \(message)") }
            #expect(!message.contains("SECRET"), "\(name): \(message)")
            #expect(!message.contains("eyJhbGci"), "\(name): \(message)")
        }
    }

    @Test func truncatedPayloadReportsAParseErrorWithPosition() {
        let item = Self.item(type: 2001, data: #"{"secret":"abc"#)
        #expect(throws: SchemaError.malformedJSON(JSONParseError(reason: .unexpectedEnd, offset: 14, line: 1, column: 15), item: ItemReference(item))) {
            try UnifiedItem(item)
        }
    }

    @Test func typedInitializersRejectOtherKinds() {
        let item = Self.item(type: 1003, data: "{}")
        #expect(throws: SchemaError.wrongItemType(expected: "a credential (type 2000...2009)", item: ItemReference(item))) {
            try Credential(storeItem: item)
        }
        #expect(throws: SchemaError.self) { try AppMetadata(storeItem: item) }
        #expect(throws: SchemaError.self) { try AccountMetadata(storeItem: item) }
        #expect(throws: SchemaError.self) { try Account(storeItem: Self.item(type: 2001, data: "{}")) }
    }

    // MARK: - Through a store

    @Test func roundTripThroughAMemoryStore() throws {
        let store = MemoryStore(accessGroups: try AccessGroups([Self.group]))
        let at = Credential(credentialType: .accessToken, secret: "at", clientId: "cid", homeAccountId: "u.t", environment: "login.windows.net", realm: "tid", target: "User.Read", expiresOn: 10)
        let rt = Credential(credentialType: .refreshToken, secret: "rt", clientId: "cid", homeAccountId: "u.t", environment: "login.windows.net", familyId: "1")
        let account = Account(homeAccountId: "u.t", environment: "login.windows.net", realm: "tid", username: "User@Contoso.com")
        let metadata = AppMetadata(clientId: "cid", environment: "login.windows.net", familyId: "")
        try store.save([at, rt].map { try $0.storeItem(accessGroup: Self.group) } + [account.storeItem(accessGroup: Self.group), metadata.storeItem(accessGroup: Self.group)])

        // Lookups the way MSAL queries: AT by generic + type, account by generic + type, app metadata by service + type.
        let atItems = try store.items(matching: ItemQuery(generic: Data("accesstoken-cid-tid".utf8), type: 2001))
        #expect(try atItems.map { try UnifiedItem($0) } == [.credential(at)])
        let accountItems = try store.items(matching: ItemQuery(generic: Data("user@contoso.com".utf8), type: 1003))
        #expect(try accountItems.map { try UnifiedItem($0) } == [.account(account)])
        let metadataItems = try store.items(matching: ItemQuery(service: "appmetadata-cid", type: 3001))
        #expect(metadataItems.first?.generic == Data())
        #expect(try store.item(rt.key.identity(accessGroup: Self.group)).map { try Credential(storeItem: $0) } == rt)
        #expect(try store.items(matching: rt.key.query()).count == 1)
    }
}
