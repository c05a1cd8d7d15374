import CacheStore
import Foundation
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// Items MSAL.NET on iOS (Xamarin/MAUI) writes read like MSAL ObjC's
/// (docs/formats/unified-json-and-adal-dotnet.md §2.1, §1.3): every account type 1003 with `authority_type`
/// MSSTS, `client_info` on every item, `ext_expires_on` beside `extended_expires_on`, no
/// `token_type` for Bearer, PoP ATs as type 2001 with `credential_type` AccessToken and `kid`, no app
/// metadata and no family ids (FOCI is off on iOS).
@Suite struct MSALNetInteropTests {
    let fixture: CacheFixture
    let clientInfo = TokenResponses.clientInfo(uid: IDs.uid, utid: IDs.homeTenant)
    let idToken = TokenResponses.idToken([
        "tid": .string(IDs.homeTenant), "oid": .string(IDs.uid), "sub": "subject",
        "preferred_username": .string(IDs.username), "name": "Xamarin User", "ver": "2.0",
    ])
    /// MSAL.NET's account attribute: `<hai>-<env>`, lower-cased.
    let account = "\(IDs.home)-login.windows.net"

    init() throws {
        fixture = try CacheFixture()
        let now = fixture.now
        let common: JSONObject = [
            "home_account_id": .string(IDs.home), "environment": "login.windows.net",
            "client_info": .string(clientInfo), "client_id": .string(IDs.appA),
        ]
        func item(_ service: String, _ generic: String, _ type: UInt32, _ fields: JSONObject) -> StoreItem {
            var object = common
            for (key, value) in fields { object[key] = value }
            return StoreItem(
                accessGroup: IDs.group, account: account, service: service, generic: Data(generic.utf8), type: type,
                data: JSONValue.object(object).serialized())
        }
        let credentialId = "accesstoken-\(IDs.appA)-\(IDs.homeTenant)"
        try fixture.put(item("\(credentialId)-mail.read user.read", credentialId, 2001, [
            "credential_type": "AccessToken", "secret": "net-access-token", "realm": .string(IDs.homeTenant),
            "target": "Mail.Read User.Read", "cached_at": .string(String(now)), "expires_on": .string(String(now + 3600)),
            "extended_expires_on": .string(String(now + 7200)), "ext_expires_on": .string(String(now + 7200)),
        ]))
        let popId = "accesstoken_with_authscheme-\(IDs.appA)-\(IDs.homeTenant)"
        try fixture.put(item("\(popId)-files.read-pop", popId, 2001, [
            "credential_type": "AccessToken", "secret": "net-pop-token", "realm": .string(IDs.homeTenant),
            "target": "Files.Read", "cached_at": .string(String(now)), "expires_on": .string(String(now + 3600)),
            "extended_expires_on": .string(String(now + 3600)), "ext_expires_on": .string(String(now + 3600)),
            "token_type": "pop", "kid": "net-key-id",
        ]))
        try fixture.put(item("refreshtoken-\(IDs.appA)--", "refreshtoken-\(IDs.appA)-", 2002, [
            "credential_type": "RefreshToken", "secret": "net-refresh-token",
        ]))
        try fixture.put(item("idtoken-\(IDs.appA)-\(IDs.homeTenant)-", "idtoken-\(IDs.appA)-\(IDs.homeTenant)", 2003, [
            "credential_type": "IdToken", "secret": .string(idToken), "realm": .string(IDs.homeTenant),
        ]))
        var accountObject: JSONObject = [
            "home_account_id": .string(IDs.home), "environment": "login.windows.net", "realm": .string(IDs.homeTenant),
            "local_account_id": .string(IDs.uid), "username": .string(IDs.username), "name": "Xamarin User",
            "authority_type": "MSSTS", "client_info": .string(clientInfo),
        ]
        accountObject["given_name"] = "Xamarin"
        try fixture.put(StoreItem(
            accessGroup: IDs.group, account: account, service: IDs.homeTenant, generic: Data(IDs.username.utf8),
            type: 1003, data: JSONValue.object(accountObject).serialized()))
    }

    @Test func everyItemReads() throws {
        #expect(try fixture.cache.unreadableItems().isEmpty)
    }

    @Test func bearerAccessTokenIsFound() throws {
        let found = try #require(try fixture.accessToken(environment: "login.microsoftonline.com", realm: "common", scopes: ["user.read"]))
        #expect(found.credential.secret == "net-access-token")
        #expect(found.credential.extendedExpiresOn == fixture.now + 7200)
        #expect(found.credential.clientInfo == clientInfo)
    }

    @Test func popAccessTokenWrittenAsType2001IsFoundAsPop() throws {
        #expect(try fixture.accessToken(scopes: ["Files.Read"]) == nil, "not for a Bearer lookup")
        let found = try #require(try fixture.accessToken(scopes: ["Files.Read"], tokenType: "pop", keyId: "net-key-id"))
        #expect(found.credential.secret == "net-pop-token")
        #expect(try fixture.accessToken(scopes: ["Files.Read"], tokenType: "pop", keyId: "other") == nil)
    }

    @Test func refreshTokenIsFoundByAccountAndUsername() throws {
        let query = RefreshTokenQuery(subject: .username(IDs.username.uppercased()), clientId: IDs.appA, environment: "login.microsoftonline.com")
        #expect(try fixture.cache.refreshToken(query)?.credential.secret == "net-refresh-token")
        #expect(try fixture.cache.refreshToken(RefreshTokenQuery(subject: .homeAccountId(IDs.home), clientId: IDs.appA)) != nil)
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB) == nil, "FOCI is off on iOS")
    }

    @Test func idTokenIsFound() throws {
        let found = try #require(try fixture.cache.idToken(homeAccountId: IDs.home, clientId: IDs.appA, environment: "login.microsoftonline.com", realm: IDs.homeTenant))
        #expect(found.credential.secret == idToken)
    }

    @Test func accountIsListedForTheAppWithItsClaims() throws {
        let accounts = try fixture.cache.accounts(clientId: IDs.appA)
        let account = try #require(accounts.count == 1 ? accounts.first : nil)
        #expect(account.homeAccountId == IDs.home)
        #expect(account.username == IDs.username)
        let profile = try #require(account.tenantProfiles.first)
        #expect(profile.isHomeTenant)
        #expect(profile.account.givenName == "Xamarin")
        #expect(profile.idTokenClaims?["name"]?.stringValue == "Xamarin User")
        #expect(try fixture.cache.account(username: IDs.username.uppercased(), clientId: IDs.appA)?.homeAccountId == IDs.home)
        #expect(try fixture.cache.accounts(clientId: IDs.appB).isEmpty)
    }

    @Test func savingOverMSALNetItemsKeepsTheirFields() throws {
        try fixture.save(TokenResponses.aad(scope: "Calendars.Read"))
        let stored = try fixture.item(account: account, service: IDs.homeTenant, type: 1003)
        let json = try stringMembers(try payload(stored))
        #expect(json["given_name"] == "Xamarin", "kept by the account merge")
        #expect(json["name"] == "Cloud IDLAB Basic User")
        #expect(try fixture.accessToken(scopes: ["Mail.Read"])?.credential.secret == "net-access-token", "disjoint scopes stay")
    }
}
