import CacheStore
import Foundation
import TokenCache
import TokenCacheSchema
import Testing

/// Access-token lookup (docs/formats/keychain-and-adal-objc.md §4.1–4.3; unified-json-and-adal-dotnet.md §4.1 where ObjC is silent).
@Suite struct AccessTokenLookupTests {
    let fixture: CacheFixture
    init() throws { fixture = try CacheFixture() }

    // MARK: - Environment aliases (§4.1)

    @Test(arguments: ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net", "LOGIN.MicrosoftOnline.com"])
    func publicCloudAliasesFindEachOthersTokens(_ environment: String) throws {
        try fixture.save(authority: "https://login.microsoft.com/common")
        #expect(try fixture.accessToken(environment: environment)?.credential.secret == "access-token-secret")
    }

    @Test func chinaCloudTokenIsNotFoundThroughThePublicCloud() throws {
        let saved = try fixture.save(authority: "https://login.chinacloudapi.cn/common")
        #expect(saved.environment == "login.partner.microsoftonline.cn")
        #expect(try fixture.accessToken(environment: "login.microsoftonline.com") == nil)
        #expect(try fixture.accessToken(environment: "login.windows.net") == nil)
        #expect(try fixture.accessToken(environment: "login.chinacloudapi.cn") != nil)
        #expect(try fixture.accessToken(environment: "login.partner.microsoftonline.cn") != nil)
    }

    @Test func unknownHostMatchesOnlyItself() throws {
        let saved = try fixture.save(authority: "https://login.contoso-sts.example/common")
        #expect(saved.environment == "login.contoso-sts.example")
        #expect(try fixture.accessToken(environment: "login.contoso-sts.example") != nil)
        #expect(try fixture.accessToken(environment: "login.microsoftonline.com") == nil)
        #expect(try fixture.accessToken(environment: "login.windows.net") == nil)
        // And the other way round: a public-cloud token is not found through the unknown host.
        try fixture.save(TokenResponses.aad(uid: IDs.uid2))
        #expect(try fixture.accessToken(home: IDs.home2, environment: "login.contoso-sts.example") == nil)
        #expect(try fixture.accessToken(home: IDs.home2, environment: "login.microsoftonline.com") != nil)
    }

    @Test func tokenUnderThePreferredCacheHostWinsOverAnAlias() throws {
        try fixture.put(Credential(
            credentialType: .accessToken, secret: "under-alias", clientId: IDs.appA, homeAccountId: IDs.home,
            environment: "login.microsoftonline.com", realm: IDs.homeTenant, target: "User.Read",
            cachedAt: fixture.now, expiresOn: fixture.now + 7200))
        #expect(try fixture.accessToken()?.credential.secret == "under-alias")
        try fixture.save(TokenResponses.aad(scope: "Files.Read User.Read", accessToken: "under-preferred", expiresIn: 3600))
        // The save replaced the alias token (intersecting scopes), so check with disjoint scopes.
        try fixture.put(Credential(
            credentialType: .accessToken, secret: "under-alias-2", clientId: IDs.appA, homeAccountId: IDs.home,
            environment: "login.microsoftonline.com", realm: IDs.homeTenant, target: "User.Read",
            cachedAt: fixture.now, expiresOn: fixture.now + 7200))
        #expect(try fixture.accessToken()?.credential.secret == "under-preferred")
    }

    // MARK: - Scopes (§4 SubSet matching, reserved scopes from unified-json-and-adal-dotnet.md §4.1)

    @Test func requestedScopesAreASubsetInAnyCase() throws {
        try fixture.save()
        #expect(try fixture.accessToken(scopes: ["CALENDARS.READ", "tasks.read"]) != nil)
        #expect(try fixture.accessToken(scopes: [" user.read "]) != nil)
        #expect(try fixture.accessToken(scopes: ["User.Read", "Mail.Read"]) == nil)
        #expect(try fixture.accessToken(scopes: ["Mail.Read"]) == nil)
    }

    @Test func reservedScopesAreIgnored() throws {
        try fixture.save(TokenResponses.aad(scope: "User.Read"))
        #expect(try fixture.accessToken(scopes: ["openid", "profile", "offline_access", "User.Read"]) != nil)
        #expect(try fixture.accessToken(scopes: ["OpenID", "user.read"]) != nil)
    }

    // MARK: - Realm (§4.2)

    @Test func tokenOfOneTenantIsNotFoundForAnother() throws {
        try fixture.save()
        #expect(try fixture.accessToken(realm: IDs.homeTenant) != nil)
        #expect(try fixture.accessToken(realm: IDs.guestTenant) == nil)
        #expect(try fixture.accessToken(realm: "contoso.onmicrosoft.com") == nil)
    }

    @Test(arguments: ["common", "organizations", "Common", "consumers"])
    func placeholderTenantsStandForTheHomeTenant(_ placeholder: String) throws {
        try fixture.save(TokenResponses.aad(scope: "User.Read", accessToken: "home-tenant-token"))
        try fixture.save(
            TokenResponses.aad(tid: IDs.guestTenant, utid: IDs.homeTenant, scope: "User.Read", accessToken: "guest-tenant-token"),
            authority: "https://login.microsoftonline.com/\(IDs.guestTenant)")
        #expect(try fixture.accessToken(realm: placeholder)?.credential.secret == "home-tenant-token")
        #expect(try fixture.accessToken(realm: IDs.guestTenant)?.credential.secret == "guest-tenant-token")
    }

    /// §4.2: `organizations` is not replaced by the home tenant when that is the MSA tenant (an
    /// `organizations` authority cannot serve a personal account); `common` still is.
    @Test func organizationsDoesNotStandForTheMSATenant() throws {
        let msaHome = "00000000-0000-0000-1234-567890abcdef.\(IDs.msaTenant)"
        try fixture.save(TokenResponses.aad(
            uid: "00000000-0000-0000-1234-567890abcdef", tid: IDs.msaTenant, username: "someone@outlook.com", scope: "User.Read"))
        #expect(try fixture.accessToken(home: msaHome, realm: "common") != nil)
        #expect(try fixture.accessToken(home: msaHome, realm: "consumers") != nil)
        #expect(try fixture.accessToken(home: msaHome, realm: "organizations") == nil)
    }

    /// §4.2: the home tenant replaces a placeholder only when it parses as a UUID.
    @Test func placeholderIsKeptWhenTheHomeTenantIsNoUUID() throws {
        try fixture.save(TokenResponses.aad(tid: "contoso", scope: "User.Read"))
        let home = "\(IDs.uid).contoso"
        #expect(try fixture.accessToken(home: home, realm: "contoso") != nil)
        #expect(try fixture.accessToken(home: home, realm: "common") == nil)
    }

    // MARK: - Expiry (§4.3, MSIDAccessToken)

    @Test func tokenExpiresFiveMinutesEarly() throws {
        try fixture.save()  // expires_on = t0 + 3600
        fixture.clock.advance(by: 3600 - 301)
        #expect(try fixture.accessToken() != nil, "301 s left")
        fixture.clock.advance(by: 1)
        #expect(try fixture.accessToken() != nil, "300 s left: expired only when expires_on < now + 300")
        fixture.clock.advance(by: 1)
        #expect(try fixture.accessToken() == nil, "299 s left")
    }

    @Test func tokenCachedInTheFutureIsTreatedAsExpired() throws {
        try fixture.save()
        #expect(try fixture.accessToken() != nil)
        fixture.clock.advance(by: -60)  // the device clock went back: cached_at is now in the future
        #expect(try fixture.accessToken() == nil)
    }

    @Test func refreshOnIsReportedAndNeedsRefreshOnceItPassed() throws {
        try fixture.save(TokenResponses.aad(refreshIn: 1800))
        let fresh = try #require(try fixture.accessToken())
        #expect(fresh.refreshOn == fixture.clock.now.addingTimeInterval(1800))
        #expect(fresh.needsRefresh == false)
        fixture.clock.advance(by: 1801)
        let stale = try #require(try fixture.accessToken(), "still valid, only due for refresh")
        #expect(stale.needsRefresh)

        try fixture.save(TokenResponses.aad(uid: IDs.uid2))
        let none = try #require(try fixture.accessToken(home: IDs.home2))
        #expect(none.refreshOn == nil)
        #expect(none.needsRefresh == false)
    }

    // MARK: - Token type and key id (§4.3, unified-json-and-adal-dotnet.md §4.1 steps 3, 9)

    @Test func popTokenNeedsThePopTypeAndTheSameKeyId() throws {
        try fixture.save(TokenResponses.aad(scope: "User.Read", accessToken: "pop-token", tokenType: "pop"), keyId: "key-1")
        #expect(try fixture.accessToken() == nil, "a Bearer lookup does not return a PoP token")
        #expect(try fixture.accessToken(tokenType: "pop", keyId: "key-1")?.credential.secret == "pop-token")
        #expect(try fixture.accessToken(tokenType: "PoP", keyId: "key-1") != nil)
        #expect(try fixture.accessToken(tokenType: "pop", keyId: "key-2") == nil)
        #expect(try fixture.accessToken(tokenType: "pop") == nil)
        #expect(try fixture.accessToken(tokenType: "ssh-cert", keyId: "key-1") == nil)
    }

    @Test func bearerTokenIsNotReturnedForAPopLookup() throws {
        try fixture.save(TokenResponses.aad(scope: "User.Read"))
        #expect(try fixture.accessToken(tokenType: "pop", keyId: "key-1") == nil)
        #expect(try fixture.accessToken(tokenType: "Bearer") != nil)
    }

    // MARK: - Requested claims (§4 "requested claims: unless both blank, exactly equal")

    @Test func requestedClaimsMustMatchExactly() throws {
        let claims = #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#
        try fixture.save(TokenResponses.aad(scope: "User.Read"), requestedClaims: claims)
        #expect(try fixture.accessToken() == nil, "a lookup without claims does not get a claims token")
        #expect(try fixture.accessToken(requestedClaims: claims) != nil)
        #expect(try fixture.accessToken(requestedClaims: claims.uppercased()) == nil, "case-sensitive")
        #expect(try fixture.accessToken(requestedClaims: #"{"access_token":{"xms_cc":{"values":["cp2"]}}}"#) == nil)
    }

    @Test func blankClaimsEqualAbsentClaims() throws {
        try fixture.save(TokenResponses.aad(scope: "User.Read"))
        #expect(try fixture.accessToken(requestedClaims: "") != nil)
        #expect(try fixture.accessToken(requestedClaims: "   ") != nil)
        #expect(try fixture.accessToken(requestedClaims: #"{"id_token":{}}"#) == nil)
    }

    // MARK: - Application identifier, client, account

    @Test func applicationIdentifierMustMatch() throws {
        try fixture.save(TokenResponses.aad(scope: "User.Read"), applicationIdentifier: "com.contoso.app")
        #expect(try fixture.accessToken() == nil)
        #expect(try fixture.accessToken(applicationIdentifier: "com.contoso.app") != nil)
        #expect(try fixture.accessToken(applicationIdentifier: "COM.Contoso.App") != nil, "keys normalize it")
        #expect(try fixture.accessToken(applicationIdentifier: "com.contoso.other") == nil)
    }

    @Test func clientAndHomeAccountMustMatchIgnoringCase() throws {
        try fixture.save()
        #expect(try fixture.accessToken(home: IDs.home.uppercased(), clientId: IDs.appA.uppercased()) != nil)
        #expect(try fixture.accessToken(clientId: IDs.appB) == nil)
        #expect(try fixture.accessToken(home: IDs.home2) == nil)
    }

    @Test func foundTokenReportsItsExpiryAndIdentity() throws {
        try fixture.save()
        let found = try #require(try fixture.accessToken())
        #expect(found.expiresOn == fixture.clock.now.addingTimeInterval(3600))
        #expect(found.stored.identity.type == 2001)
        #expect(found.stored.identity.account == "\(IDs.home)-login.windows.net")
    }
}
