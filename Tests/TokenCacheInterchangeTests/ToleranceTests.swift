import CacheStore
import Foundation
import Testing
import TokenCache
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

/// The writer variants of the reference, each in a document made for the purpose.
@Suite struct ToleranceTests {
    static let home = "uid.utid"
    static let env = "login.microsoftonline.com"
    static let account = "uid.utid-login.microsoftonline.com"

    @Test func numbersNullsBOMTrailingCommasAndKeyIdSpellings() throws {
        let text = """
            \u{FEFF}{
              "AccessToken": {
                "whatever": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com",
                  "credential_type": "AccessToken", "client_id": "cid", "secret": "at-1", "realm": "utid",
                  "target": "User.Read", "cached_at": 1700000000, "expires_on": "1700003600.5",
                  "extended_expires_on": null, "ext_expires_on": 1700007200, "key_id": "k-python",
                  "token_type": "ssh-cert", "last_modification_time": "1700000000", "x_custom": {"a": [1, 2]},},
                "go": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com",
                  "credential_type": "AccessToken", "client_id": "cid", "secret": "at-2", "realm": "utid",
                  "target": ["Mail.Read", "Mail.Send"], "expires_on": "1700003600", "keyid": "k-go",
                  "token_type": "pop"},
                "objc": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com",
                  "credential_type": "AccessToken", "client_id": "cid", "secret": "at-3", "realm": "utid",
                  "target": "Files.Read", "expires_on": "1700003600", "kid": "k-objc", "token_type": "pop"},
              },
              "RefreshToken": {"x": null, "y": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com",
                  "credential_type": "RefreshToken", "client_id": "cid", "secret": "rt", "target": "User.Read offline_access",
                  "family_id": null}},
              "IdToken": null,
              "Account": {},
            }
            """
        let (store, report) = try imported(Data(text.utf8))
        #expect(report.imported == 4)
        #expect(report.skipped.isEmpty)

        let python = try Credential(storeItem: try #require(try store.items(matching: ItemQuery(
            account: Self.account, service: "accesstoken-cid-utid-user.read-ssh-cert", type: 2001)).first))
        #expect(python.cachedAt == 1_700_000_000)
        #expect(python.expiresOn == 1_700_003_600)
        #expect(python.extendedExpiresOn == 1_700_007_200)
        #expect(python.keyId == "k-python")
        #expect(python.additionalFields["last_modification_time"] == "1700000000")
        #expect(python.additionalFields["x_custom"] == ["a": [1, 2]])

        let go = try #require(try payload(in: store, account: Self.account, service: "accesstoken-cid-utid-mail.read mail.send-pop", type: 2001))
        #expect(go["kid"] == "k-go")
        #expect(go["target"] == "Mail.Read Mail.Send")
        #expect(try payload(in: store, account: Self.account, service: "accesstoken-cid-utid-files.read-pop", type: 2001)?["kid"] == "k-objc")

        let rt = try #require(try payload(in: store, account: Self.account, service: "refreshtoken-cid--", type: 2002))
        #expect(rt["target"] == "User.Read offline_access")
        #expect(rt["family_id"] == nil)
    }

    @Test func entryKeysAreRecomputedAndDuplicatesCollapseLastWins() throws {
        let rt = #"{"home_account_id": "UID.UTID", "environment": "login.microsoftonline.com", "credential_type": "RefreshToken", "client_id": "CID", "secret": "SECRET"}"#
        let text = """
            {"RefreshToken": {
              "uid.utid-login.microsoftonline.com-refreshtoken-cid--": \(rt.replacingOccurrences(of: "SECRET", with: "first")),
              "python-style-key--with target": \(rt.replacingOccurrences(of: "SECRET", with: "second")),
              "uid.utid-login.microsoftonline.com-refreshtoken-cid----": \(rt.replacingOccurrences(of: "SECRET", with: "third"))
            }}
            """
        let (store, report) = try imported(Data(text.utf8))
        #expect(report.entries == 3)
        #expect(report.imported == 1)
        let items = try store.allItems()
        #expect(items.map(\.service) == ["refreshtoken-cid--"])
        #expect(try Credential(storeItem: items[0]).secret == "third")
    }

    @Test func msalNodeTenantProfilesBecomeAccountRecords() throws {
        let text = #"""
            {"Account": {"uid.utid-login.microsoftonline.com-utid": {
                "home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "realm": "utid",
                "local_account_id": "uid", "username": "ann@contoso.com", "authority_type": "MSSTS", "name": "Ann",
                "tenantProfiles": [
                  "{\"tenantId\":\"utid\",\"localAccountId\":\"uid\",\"name\":\"Ann\",\"isHomeTenant\":true}",
                  "{\"tenantId\":\"guest-tenant\",\"localAccountId\":\"guest-oid\",\"name\":\"Ann (guest)\",\"isHomeTenant\":false}",
                  "not json", 42
                ]}},
             "RefreshToken": {"k": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com",
                "credential_type": "RefreshToken", "client_id": "cid", "secret": "rt"}}}
            """#
        let (store, report) = try imported(Data(text.utf8))
        #expect(report.imported == 3)
        let guest = try #require(try payload(in: store, account: Self.account, service: "guest-tenant", type: 1003))
        #expect(guest["local_account_id"] == "guest-oid")
        #expect(guest["name"] == "Ann (guest)")
        #expect(guest["tenantProfiles"] == nil)
        #expect(try payload(in: store, account: Self.account, service: "utid", type: 1003)?["tenantProfiles"] != nil)

        let accounts = try TokenCache(store: store).accounts(clientId: "cid")
        #expect(accounts.count == 1)
        #expect(Set(accounts[0].tenantProfiles.map(\.realm)) == ["utid", "guest-tenant"])
        #expect(accounts[0].tenantProfiles.first { $0.realm == "utid" }?.isHomeTenant == true)
    }

    @Test func anAccountsOwnEntryWinsOverATenantProfileOfAnother() throws {
        let text = #"""
            {"Account": {
              "b": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "realm": "guest",
                    "local_account_id": "explicit", "username": "ann@contoso.com", "authority_type": "MSSTS"},
              "a": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "realm": "utid",
                    "username": "ann@contoso.com", "authority_type": "MSSTS",
                    "tenantProfiles": ["{\"tenantId\":\"guest\",\"localAccountId\":\"derived\"}"]}}}
            """#
        let (store, _) = try imported(Data(text.utf8))
        #expect(try payload(in: store, account: Self.account, service: "guest", type: 1003)?["local_account_id"] == "explicit")
    }

    @Test func accountsWithoutAUsableAuthorityTypeAreStoredAsMSSTS() throws {
        let text = #"""
            {"Account": {
              "1": {"home_account_id": "a.t", "environment": "e", "realm": "t", "username": "a@x", "authority_type": "Generic"},
              "2": {"home_account_id": "b.t", "environment": "e", "realm": "t", "username": "b@x"},
              "3": {"home_account_id": "c.t", "environment": "e", "realm": "t", "username": "c@x", "authority_type": "ADFS"}}}
            """#
        let (store, report) = try imported(Data(text.utf8))
        #expect(report.adjusted.map(\.path) == ["Account '1'", "Account '2'"])
        #expect(report.adjusted[0].reason.contains("Generic"))
        #expect(try store.items(matching: ItemQuery(type: 1003)).count == 2)
        #expect(try store.items(matching: ItemQuery(type: 1004)).count == 1)
        #expect(try TokenCache(store: store).accounts().count == 3)
    }

    @Test func credentialTypesThatDoNotBelongInTheirSectionFollowTheSection() throws {
        let text = #"""
            {"IdToken": {"k": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com",
                "credential_type": "AccessToken", "client_id": "cid", "realm": "utid", "secret": "jwt"}},
             "AccessToken": {"x": {"home_account_id": "uid.utid", "environment": "login.microsoftonline.com",
                "client_id": "cid", "realm": "utid", "target": "a", "secret": "at", "expires_on": "1"},
                "ext": {"home_account_id": "", "environment": "login.microsoftonline.com", "credential_type": "ATExt",
                "client_id": "cid", "realm": "utid", "target": "a", "secret": "at", "ext": {"k": "v"}}}}
            """#
        let (store, report) = try imported(Data(text.utf8))
        #expect(report.adjusted.map(\.path) == ["IdToken 'k'"])
        #expect(try store.items(matching: ItemQuery(type: 2003)).count == 1)
        #expect(try store.items(matching: ItemQuery(type: 2001)).count == 1)  // missing credential_type: by section
        let extended = try #require(try store.items(matching: ItemQuery(type: 2000)).first)
        #expect(try JSONValue.parse(extended.data).objectValue?["credential_type"] == "ATExt")
    }

    @Test func unknownTopLevelNodesAreNotImported() throws {
        let (store, report) = try imported(try fixture("msal-dotnet/CacheFromTheFuture.json"))
        #expect(report.imported == 18)
        #expect(try store.allItems().allSatisfy { $0.type != nil })
    }
}
