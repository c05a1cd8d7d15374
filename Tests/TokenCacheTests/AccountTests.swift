import CacheStore
import Foundation
import TokenCache
import TokenCacheSchema
import Testing

/// Account enumeration and lookup (docs/formats/keychain-and-adal-objc.md §4.6, §1.7).
@Suite struct AccountTests {
    let fixture: CacheFixture
    init() throws { fixture = try CacheFixture() }

    @Test func accountIsFoundByIdentifierInAnyCase() throws {
        try fixture.save()
        let account = try #require(try fixture.cache.account(identifier: IDs.home.uppercased()))
        #expect(account.homeAccountId == IDs.home)
        #expect(account.username == IDs.username)
        #expect(account.name == "Cloud IDLAB Basic User")
        #expect(account.environment == "login.windows.net")
        #expect(try fixture.cache.account(identifier: IDs.home2) == nil)
    }

    @Test func accountIsFoundByUsernameInAnotherCase() throws {
        try fixture.save()
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"))
        #expect(try fixture.cache.account(username: "IDLAB@MSIDLAB4.onmicrosoft.com")?.homeAccountId == IDs.home)
        #expect(try fixture.cache.account(username: " Second@Contoso.COM ")?.homeAccountId == IDs.home2)
        #expect(try fixture.cache.account(username: "third@contoso.com") == nil)
    }

    @Test func allAccountsAreListedOncePerHomeAccount() throws {
        try fixture.save()
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"))
        try fixture.save(clientId: IDs.appB)  // the same user again, through another app
        let accounts = try fixture.cache.accounts()
        #expect(accounts.map(\.homeAccountId).sorted() == [IDs.home, IDs.home2].sorted())
    }

    @Test func oneAccountWithATenantProfilePerTenant() throws {
        try fixture.save()
        try fixture.save(
            TokenResponses.aad(tid: IDs.guestTenant, utid: IDs.homeTenant, username: "idlab_guest@contoso.com"),
            authority: "https://login.microsoftonline.com/\(IDs.guestTenant)")
        #expect(try fixture.items(type: 1003).count == 2, "one account record per tenant")

        let accounts = try fixture.cache.accounts(clientId: IDs.appA)
        let account = try #require(accounts.count == 1 ? accounts.first : nil)
        #expect(account.tenantProfiles.count == 2)
        let home = try #require(account.tenantProfiles.first { $0.realm == IDs.homeTenant })
        let guest = try #require(account.tenantProfiles.first { $0.realm == IDs.guestTenant })
        #expect(home.isHomeTenant)
        #expect(!guest.isHomeTenant)
        #expect(account.username == IDs.username, "the home tenant's username")
        #expect(home.localAccountId == IDs.uid)
    }

    @Test func idTokenClaimsAreAttachedToEachProfile() throws {
        try fixture.save(TokenResponses.aad(claims: ["marker": "home"]))
        try fixture.save(
            TokenResponses.aad(tid: IDs.guestTenant, utid: IDs.homeTenant, claims: ["marker": "guest"]),
            authority: "https://login.microsoftonline.com/\(IDs.guestTenant)")
        let account = try #require(try fixture.cache.account(identifier: IDs.home, clientId: IDs.appA))
        for profile in account.tenantProfiles {
            let claims = try #require(profile.idTokenClaims)
            #expect(claims["tid"]?.stringValue == profile.realm)
            #expect(claims["marker"]?.stringValue == (profile.isHomeTenant ? "home" : "guest"))
        }
    }

    @Test func environmentFilterKeepsOnlyRecordsOfThatCloud() throws {
        try fixture.save()
        #expect(try fixture.cache.accounts(environment: "login.microsoftonline.com").count == 1)
        #expect(try fixture.cache.accounts(environment: "login.chinacloudapi.cn").isEmpty)
    }

    @Test func adfsAccountAndItsTokensAreFound() throws {
        let response = TokenResponse(
            accessToken: "adfs-at", refreshToken: "adfs-rt",
            idToken: TokenResponses.idToken(["sub": "ADFS-Subject-1", "upn": "user@contoso.com"]),
            scope: "https://api.contoso.com/read", expiresIn: 3600)
        try fixture.cache.save(response, for: try CacheFixture.request("https://fs.contoso.com/adfs"))
        let account = try #require(try fixture.cache.account(username: "USER@contoso.com", clientId: IDs.appA))
        #expect(account.homeAccountId == "adfs-subject-1")
        #expect(account.tenantProfiles.map(\.realm) == [""])
        #expect(account.tenantProfiles.first?.account.authorityType == .adfs)
        let token = try fixture.accessToken(
            home: "adfs-subject-1", environment: "fs.contoso.com", realm: nil, scopes: ["https://api.contoso.com/read"])
        #expect(token?.credential.secret == "adfs-at")
        #expect(try fixture.accessToken(
            home: "adfs-subject-1", environment: "login.microsoftonline.com", realm: nil, scopes: ["https://api.contoso.com/read"]) == nil)
    }

    // MARK: - Signed-in filtering (§4.6 step 2)

    @Test func accountIsListedForTheAppWithARefreshTokenOnly() throws {
        try fixture.save(clientId: IDs.appA)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).count == 1)
        #expect(try fixture.cache.accounts(clientId: IDs.appB).isEmpty, "B has neither a token nor a family")
        #expect(try fixture.cache.account(identifier: IDs.home, clientId: IDs.appB) == nil)
        #expect(try fixture.cache.account(username: IDs.username, clientId: IDs.appB) == nil)
    }

    @Test func accountWithoutAnyRefreshTokenIsNotListedForAnApp() throws {
        try fixture.save(TokenResponses.aad(refreshToken: nil), clientId: IDs.appA)
        // A's save marked it signed_in; an app without metadata and without tokens does not see it.
        #expect(try fixture.cache.accounts(clientId: IDs.appB).isEmpty)
    }

    @Test func familyTokenOfAnotherAppCounts() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        #expect(try fixture.cache.accounts(clientId: IDs.appB).count == 1, "no metadata for B: family 1 assumed")
    }

    @Test func familyTokenDoesNotCountForAnAppOutsideTheFamily() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        try fixture.put(AppMetadata(clientId: IDs.appB, environment: "login.windows.net", familyId: ""))
        #expect(try fixture.cache.accounts(clientId: IDs.appB).isEmpty)
    }

    /// §4.5/§4.6: the family is the app metadata's `family_id` when an entry exists, `"1"` only when
    /// none does; an entry without a family id means no family (as for `familyRefreshToken`).
    @Test func appMetadataWithoutAFamilyIdMeansNoFamily() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        try fixture.put(AppMetadata(clientId: IDs.appB, environment: "login.windows.net", familyId: nil))
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB) == nil)
        #expect(try fixture.cache.accounts(clientId: IDs.appB).isEmpty)
    }

    @Test func signedOutHidesTheAccountEvenWithFamilyTokens() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        var metadata = AccountMetadata(clientId: IDs.appB)
        metadata.setSignInState(.signedOut, homeAccountId: IDs.home)
        try fixture.put(metadata)
        #expect(try fixture.cache.accounts(clientId: IDs.appB).isEmpty)
        #expect(try fixture.cache.account(identifier: IDs.home, clientId: IDs.appB) == nil)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).count == 1)
        #expect(try fixture.cache.accounts().count == 1, "without a client every account is listed")
    }

    @Test func signedInShowsTheAccountWithoutTokens() throws {
        try fixture.save(TokenResponses.aad(refreshToken: nil), clientId: IDs.appA)
        var metadata = AccountMetadata(clientId: IDs.appC)
        metadata.setSignInState(.signedIn, homeAccountId: IDs.home)
        try fixture.put(metadata)
        #expect(try fixture.cache.accounts(clientId: IDs.appC).count == 1)
    }
}
