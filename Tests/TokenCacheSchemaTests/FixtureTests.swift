import CacheStore
import Foundation
import TestSupport
import Testing

import TokenCacheJSON
@testable import TokenCacheSchema

/// Entries from MSAL.NET's real cache files, mapped by hand to the keychain items MSAL.NET on iOS
/// would write for them (account `<hai>-<env>` lower-cased, service = the file key after that
/// prefix, type by section), then decoded.
@Suite struct FixtureTests {
    static let group = "com.microsoft.adalcache"

    static func sections(_ file: String) throws -> JSONObject {
        let data = try Data(contentsOf: Fixtures.url(file))
        return try #require(try JSONValue.parse(data).objectValue)
    }

    /// The keychain item MSAL.NET-iOS writes for a credential entry whose file key is `fileKey`.
    static func credentialItem(fileKey: String, entry: JSONObject, type: UInt32) throws -> StoreItem {
        let hai = try #require(entry["home_account_id"]?.stringValue)
        let env = try #require(entry["environment"]?.stringValue)
        let prefix = "\(hai)-\(env)-".lowercased()
        #expect(fileKey.lowercased().hasPrefix(prefix))
        let service = String(fileKey.lowercased().dropFirst(prefix.count))
        return StoreItem(accessGroup: group, account: "\(hai)-\(env)".lowercased(), service: service, type: type,
                         data: JSONValue.object(entry).serialized())
    }

    @Test func expectedTokenCacheCredentials() throws {
        let data = try Data(contentsOf: Fixtures.url("msal-dotnet/ExpectedTokenCache.json"))
        #expect(data.starts(with: [0xEF, 0xBB, 0xBF]))  // this file carries a BOM (and trailing commas)
        let cache = try Self.sections("msal-dotnet/ExpectedTokenCache.json")
        var decoded = 0
        for (section, type) in [("AccessToken", UInt32(2001)), ("RefreshToken", 2002), ("IdToken", 2003)] {
            for (fileKey, value) in try #require(cache[section]?.objectValue) {
                let item = try Self.credentialItem(fileKey: fileKey, entry: try #require(value.objectValue), type: type)
                guard case .credential(let credential) = try UnifiedItem(item) else {
                    Issue.record("\(section) entry is not a credential")
                    continue
                }
                // Our key for the entry is the one MSAL.NET wrote.
                #expect(credential.key.account == item.account)
                #expect(credential.key.service == item.service)
                #expect(credential.key.type == type)
                #expect(credential.secret == "access_token_secret")
                #expect(credential.clientId == "d3adb33f-c0de-ed0c-c0de-deadb33fc0d3")
                if section == "AccessToken" {
                    #expect(credential.userAssertionHash == "assertion_hash")
                    #expect(credential.cachedAt == 34567)
                    #expect(credential.expiresOn == 12345)
                    #expect(credential.extendedExpiresOn == 23456)
                    #expect(credential.target == "r1/scope1 r1/scope2")
                    // Rewritten, the entry keeps both expiry names and loses nothing.
                    let rewritten = try payloadObject(credential.jsonData)
                    #expect(rewritten == value.objectValue)
                }
                decoded += 1
            }
        }
        #expect(decoded == 12)  // 5 ATs, 4 RTs (one FRT), 3 ID tokens
        let frtKey = "my-uid.my-utid-env-refreshtoken-1--"
        let frtEntry = try #require(cache["RefreshToken"]?.objectValue?[frtKey]?.objectValue)
        let frt = try Credential(storeItem: try Self.credentialItem(fileKey: frtKey, entry: frtEntry, type: 2002))
        #expect(frt.familyId == "1")
        #expect(frt.key.service == "refreshtoken-1--")
        #expect(frt.key.genericString == "refreshtoken-1-")
    }

    @Test func expectedTokenCacheAccountsHaveAnUnusableAuthorityType() throws {
        // This file's accounts say "authority_type": "authority type": the Apple libraries reject them.
        let cache = try Self.sections("msal-dotnet/ExpectedTokenCache.json")
        for (_, value) in try #require(cache["Account"]?.objectValue) {
            let entry = try #require(value.objectValue)
            let item = StoreItem(accessGroup: Self.group, account: "my-uid.my-utid-env_1", service: "the_tenant_id",
                                 generic: Data("joe@localhost.com".utf8), type: 1003, data: JSONValue.object(entry).serialized())
            #expect(throws: SchemaError.invalidField("authority_type", reason: "is not one of MSSTS, AAD, MSA, ADFS", item: ItemReference(item))) {
                try UnifiedItem(item)
            }
        }
    }

    @Test func expectedTokenCacheAppMetadata() throws {
        let cache = try Self.sections("msal-dotnet/ExpectedTokenCache.json")
        let entries = try #require(cache["AppMetadata"]?.objectValue)
        var families: [String: String?] = [:]
        for (_, value) in entries {
            let entry = try #require(value.objectValue)
            let environment = try #require(entry["environment"]?.stringValue)
            let clientId = try #require(entry["client_id"]?.stringValue)
            let item = StoreItem(accessGroup: Self.group, account: environment, service: "appmetadata-\(clientId)", type: 3001,
                                 data: JSONValue.object(entry).serialized())
            let metadata = try AppMetadata(storeItem: item)
            #expect(metadata.key.account == item.account)
            #expect(metadata.key.service == item.service)
            families.updateValue(metadata.familyId, forKey: "\(environment)/\(clientId)")
        }
        #expect(families == [
            "env_1/d3adb33f-c0de-ed0c-c0de-deadb33fc0d3": "1",
            "env_2/d3adb33f-c0de-ed0c-c0de-deadb33fc0d3": String?.none,
            "env_1/aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa": "another_family",
        ])
    }

    @Test func multiCloudAccountsWithNullsAndClientInfo() throws {
        let cache = try Self.sections("msal-dotnet/MultiCloudTokenCache.json")
        var environments: Set<String> = []
        for (fileKey, value) in try #require(cache["Account"]?.objectValue) {
            let entry = try #require(value.objectValue)
            let hai = try #require(entry["home_account_id"]?.stringValue)
            let env = try #require(entry["environment"]?.stringValue)
            let realm = try #require(entry["realm"]?.stringValue)
            #expect(fileKey == "\(hai)-\(env)-\(realm)")  // MSAL.NET's file key for accounts
            let username = try #require(entry["username"]?.stringValue)
            let item = StoreItem(accessGroup: Self.group, account: "\(hai)-\(env)".lowercased(), service: realm.lowercased(),
                                 generic: Data(username.lowercased().utf8), type: 1003, data: JSONValue.object(entry).serialized())
            let account = try Account(storeItem: item)
            #expect(account.key == ItemKey(account: item.account, service: item.service, generic: item.generic, type: 1003))
            #expect(account.givenName == nil)
            #expect(account.clientInfo?.hasPrefix("eyJ1aWQiOi") == true)
            #expect(Base64URL.decodeString(try #require(account.clientInfo))?.contains("\"utid\"") == true)
            #expect(account.jsonObject["given_name"] == nil)  // nulls are not written back
            environments.insert(env)
        }
        #expect(environments == ["login.microsoftonline.de", "login.partner.microsoftonline.cn", "login.windows.net"])
    }

    @Test func multiCloudCredentialsWithNullFamilyAndAssertionHash() throws {
        // This file's keys name client 872cd9fa-… while its entries say 0615b6ca-…: MSAL.NET ignores
        // file keys and recomputes them, so the expected services here come from the entries.
        let cache = try Self.sections("msal-dotnet/MultiCloudTokenCache.json")
        var services: Set<String> = []
        for (section, type) in [("AccessToken", UInt32(2001)), ("RefreshToken", 2002), ("IdToken", 2003)] {
            for (fileKey, value) in try #require(cache[section]?.objectValue) {
                let item = try Self.credentialItem(fileKey: fileKey, entry: try #require(value.objectValue), type: type)
                let credential = try Credential(storeItem: item)
                #expect(credential.key.account == item.account)
                #expect(credential.userAssertionHash == nil)
                #expect(credential.clientInfo != nil)
                services.insert(credential.key.service)
            }
        }
        let cid = "0615b6ca-88d4-4884-8729-b178178f7c27"
        // "family_id": "" and "family_id": null both leave the RT keyed by its client id.
        #expect(services.filter { $0.hasPrefix("refreshtoken-") } == ["refreshtoken-\(cid)--"])
        #expect(services.contains("idtoken-\(cid)-49f548d0-12b7-4169-a390-bb5304d24462-"))
        #expect(services.contains("accesstoken-\(cid)-469fdeb4-d4fd-4fde-991e-308a78e4bea4-https://graph.cloudapi.de/62e90394-69f5-4237-9190-012177145e10 https://graph.cloudapi.de/.default"))
    }

    @Test func wamAccountIdsSurviveARewrite() throws {
        let cache = try Self.sections("msal-dotnet/TokenCacheWithWamId.json")
        let accounts = try #require(cache["Account"]?.objectValue)
        var withWam = 0
        for (_, value) in accounts {
            let entry = try #require(value.objectValue)
            var account = try Account(jsonObject: entry)
            account.name = "Renamed"
            let rewritten = try payloadObject(account.jsonData)
            #expect(rewritten["wam_account_ids"] == entry["wam_account_ids"])
            if entry["wam_account_ids"] != nil { withWam += 1 }
        }
        #expect(withWam >= 2)
    }
}
