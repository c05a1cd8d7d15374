import CacheStore
import Foundation
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// ID-token lookup (docs/formats/keychain-and-adal-objc.md §4.4) and app-metadata lookup (§1.6).
@Suite struct IdTokenAndAppMetadataTests {
    let fixture: CacheFixture
    init() throws { fixture = try CacheFixture() }

    @Test func idTokenIsFoundByAccountClientAliasAndRealm() throws {
        let response = TokenResponses.aad()
        try fixture.save(response)
        let found = try #require(try fixture.cache.idToken(
            homeAccountId: IDs.home.uppercased(), clientId: IDs.appA, environment: "login.microsoftonline.com", realm: IDs.homeTenant))
        #expect(found.credential.secret == response.idToken)
        #expect(found.credential.credentialType == .idToken)
        #expect(try fixture.cache.idToken(homeAccountId: IDs.home, clientId: IDs.appA, environment: "login.microsoft.com") != nil)
        #expect(try fixture.cache.idToken(homeAccountId: IDs.home, clientId: IDs.appA, environment: "login.windows.net", realm: "common") != nil)
    }

    @Test func idTokenOfAnotherTenantClientOrCloudIsNotFound() throws {
        try fixture.save()
        #expect(try fixture.cache.idToken(homeAccountId: IDs.home, clientId: IDs.appA, environment: "login.windows.net", realm: IDs.guestTenant) == nil)
        #expect(try fixture.cache.idToken(homeAccountId: IDs.home, clientId: IDs.appB, environment: "login.windows.net") == nil)
        #expect(try fixture.cache.idToken(homeAccountId: IDs.home, clientId: IDs.appA, environment: "login.chinacloudapi.cn") == nil)
        #expect(try fixture.cache.idToken(homeAccountId: IDs.home2, clientId: IDs.appA, environment: "login.windows.net") == nil)
    }

    @Test func idTokenOfEachTenantIsKeptApart() throws {
        try fixture.save(TokenResponses.aad(claims: ["marker": "home"]))
        try fixture.save(
            TokenResponses.aad(tid: IDs.guestTenant, utid: IDs.homeTenant, claims: ["marker": "guest"]),
            authority: "https://login.microsoftonline.com/\(IDs.guestTenant)")
        let guest = try #require(try fixture.cache.idToken(
            homeAccountId: IDs.home, clientId: IDs.appA, environment: "login.windows.net", realm: IDs.guestTenant))
        #expect(IdTokenClaims(rawToken: guest.credential.secret)?["marker"] == "guest")
        let home = try #require(try fixture.cache.idToken(
            homeAccountId: IDs.home, clientId: IDs.appA, environment: "login.windows.net", realm: "organizations"))
        #expect(IdTokenClaims(rawToken: home.credential.secret)?["marker"] == "home")
    }

    /// The claims are the first part that carries an identity claim, else the first JSON object
    /// part; parts are cut at every dot, empty ones included.
    @Test func idTokenClaimsAreFoundInTheirPart() {
        func part(_ object: JSONObject) -> String { Base64URL.encode(JSONValue.object(object).serialized()) }
        let header = part(["typ": "JWT", "alg": "RS256"])
        let claims = part(["tid": "t", "preferred_username": "a@b.c"])
        #expect(IdTokenClaims(rawToken: header + "." + claims + ".sig")?.username == "a@b.c")
        #expect(IdTokenClaims(rawToken: claims)?.tenantId == "t")
        #expect(IdTokenClaims(rawToken: "." + claims + ".")?.tenantId == "t")
        #expect(IdTokenClaims(rawToken: header + ".." + claims)?.tenantId == "t")
        #expect(IdTokenClaims(rawToken: claims + "." + header)?.tenantId == "t")
        // No identity claim anywhere: the first object stands in.
        #expect(IdTokenClaims(rawToken: "x." + header + "." + part(["typ": "other"]))?.claims["alg"] == "RS256")
        #expect(IdTokenClaims(rawToken: "") == nil)
        #expect(IdTokenClaims(rawToken: "...") == nil)
        #expect(IdTokenClaims(rawToken: "not-base64!.also not") == nil)
    }

    @Test func appMetadataIsFoundByClientAndAnyAlias() throws {
        try fixture.save(TokenResponses.aad(foci: "1"))
        let metadata = try #require(try fixture.cache.appMetadata(clientId: IDs.appA))
        #expect(metadata.familyId == "1")
        #expect(metadata.environment == "login.windows.net")
        #expect(try fixture.cache.appMetadata(clientId: IDs.appA, environment: "login.microsoftonline.com") != nil)
        #expect(try fixture.cache.appMetadata(clientId: IDs.appA, environment: "login.chinacloudapi.cn") == nil)
        #expect(try fixture.cache.appMetadata(clientId: IDs.appB) == nil)
    }

    @Test func appMetadataPrefersTheCloudAskedFor() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), authority: "https://login.microsoftonline.com/common")
        try fixture.save(TokenResponses.aad(), authority: "https://login.chinacloudapi.cn/common")
        #expect(try fixture.cache.appMetadata(clientId: IDs.appA, environment: "login.chinacloudapi.cn")?.familyId == "")
        #expect(try fixture.cache.appMetadata(clientId: IDs.appA, environment: "login.microsoft.com")?.familyId == "1")
    }
}
