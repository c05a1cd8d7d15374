import CacheStore
import Foundation
import TokenCache
import TokenCacheSchema
import Testing

/// Refresh and family refresh tokens (docs/formats/keychain-and-adal-objc.md §4.5; unified-json-and-adal-dotnet.md §4.2).
@Suite struct RefreshTokenTests {
    let fixture: CacheFixture
    init() throws { fixture = try CacheFixture() }

    func refreshToken(_ subject: RefreshTokenQuery.Subject = .homeAccountId(IDs.home), clientId: String = IDs.appA, familyId: String? = nil, environment: String? = nil) throws -> StoredCredential? {
        try fixture.cache.refreshToken(RefreshTokenQuery(subject: subject, clientId: clientId, familyId: familyId, environment: environment))
    }

    @Test func foundByHomeAccountIdInAnyCase() throws {
        try fixture.save()
        #expect(try refreshToken(.homeAccountId(IDs.home))?.credential.secret == "refresh-token-secret")
        #expect(try refreshToken(.homeAccountId(" \(IDs.home.uppercased()) ")) != nil)
        #expect(try refreshToken(.homeAccountId(IDs.home2)) == nil)
    }

    @Test func foundByUsernameIgnoringCase() throws {
        try fixture.save()
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com", refreshToken: "second-rt"))
        #expect(try refreshToken(.username("IDLAB@msidlab4.ONMICROSOFT.com"))?.credential.secret == "refresh-token-secret")
        #expect(try refreshToken(.username("Second@Contoso.com"))?.credential.secret == "second-rt")
        #expect(try refreshToken(.username("nobody@contoso.com")) == nil)
    }

    @Test func environmentMatchesAnyAlias() throws {
        try fixture.save()
        for environment in ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"] {
            #expect(try refreshToken(environment: environment) != nil, "\(environment)")
        }
        #expect(try refreshToken(environment: "login.chinacloudapi.cn") == nil)
        #expect(try refreshToken(environment: "login.microsoftonline.us") == nil)
    }

    @Test func familyLookupFindsTheFamilyCopyAndPlainLookupTheAppsOwn() throws {
        try fixture.save(TokenResponses.aad(refreshToken: "rt-of-a", foci: "1"), clientId: IDs.appA)

        let family = try #require(try refreshToken(clientId: IDs.appB, familyId: "1"))
        #expect(family.identity.service == "refreshtoken-1--")
        #expect(family.credential.familyId == "1")
        #expect(family.credential.clientId == IDs.appA, "the family copy names the app that wrote it")

        let own = try #require(try refreshToken(clientId: IDs.appA))
        #expect(own.identity.service == "refreshtoken-\(IDs.appA)--")
        #expect(own.credential.familyId == nil)

        #expect(try refreshToken(clientId: IDs.appB) == nil, "app B's plain lookup does not get app A's token")
        #expect(try refreshToken(clientId: IDs.appB, familyId: "2") == nil)
    }

    @Test func plainLookupForAnotherAppDoesNotFindANonFamilyToken() throws {
        try fixture.save(clientId: IDs.appA)
        #expect(try refreshToken(clientId: IDs.appB) == nil)
        #expect(try refreshToken(clientId: IDs.appB, familyId: "1") == nil)
    }

    @Test func familyRefreshTokenDefaultsToFamilyOneWithoutAppMetadata() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        #expect(try fixture.cache.appMetadata(clientId: IDs.appB) == nil)
        let found = try #require(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB))
        #expect(found.identity.service == "refreshtoken-1--")
    }

    @Test func familyRefreshTokenUsesTheAppMetadataFamily() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        try fixture.put(AppMetadata(clientId: IDs.appB, environment: "login.windows.net", familyId: "1"))
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB) != nil)
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB, environment: "login.microsoftonline.com") != nil)
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB, environment: "login.chinacloudapi.cn") == nil,
            "no token in that cloud")
    }

    @Test func noFamilyRefreshTokenWhenTheAppMetadataSaysNoFamily() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        // App B signed in once and the server said it is in no family: MSAL wrote family_id "".
        try fixture.save(TokenResponses.aad(refreshToken: "rt-of-b"), clientId: IDs.appB)
        #expect(try fixture.cache.appMetadata(clientId: IDs.appB)?.familyId == "")
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB) == nil)
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appA) != nil)
    }

    @Test func singleFamilyRefreshTokenIsFoundByAFamilyLookup() throws {
        let fixture = try CacheFixture(useSingleFamilyRefreshToken: true)
        try fixture.save(TokenResponses.aad(refreshToken: "frt", foci: "1"), clientId: IDs.appA)
        let found = try #require(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB))
        #expect(found.credential.credentialType == .familyRefreshToken)
        #expect(found.credential.secret == "frt")
    }
}
