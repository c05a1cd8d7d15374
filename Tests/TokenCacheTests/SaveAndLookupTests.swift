import CacheStore
import CacheStoreMemory
import Foundation
import TokenCache
import TokenCacheSchema
import Testing

@Suite struct SaveAndLookupTests {
    let clock = TestClock()
    let store: MemoryStore
    let cache: TokenCache
    let request: TokenRequest

    init() throws {
        store = MemoryStore(accessGroups: try AccessGroups(["com.microsoft.adalcache"]))
        let clock = self.clock
        cache = try TokenCache(store: store, configuration: .init(clock: { clock.now }))
        request = TokenRequest(
            authority: try Authority("https://login.microsoftonline.com/common"),
            clientId: "b6c69a37-df96-4db0-9088-2ab96e1d8215",
            scopes: ["User.Read"])
    }

    @Test func savedResponseIsFoundByTheLookupsAnAppMakes() throws {
        let saved = try cache.save(TokenResponses.aad(), for: request)
        #expect(saved.homeAccountId == "9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        #expect(saved.environment == "login.windows.net")
        #expect(saved.realm == "f645ad92-e38d-4d1a-b510-d1b09a74a8ca")

        let token = try #require(try cache.accessToken(AccessTokenQuery(
            homeAccountId: saved.homeAccountId, environment: "login.microsoftonline.com", realm: "common",
            clientId: request.clientId, scopes: ["user.read", "openid"])))
        #expect(token.credential.secret == "access-token-secret")
        #expect(token.expiresOn == clock.now.addingTimeInterval(3600))

        let refresh = try #require(try cache.refreshToken(RefreshTokenQuery(
            subject: .username("IDLAB@msidlab4.onmicrosoft.com"), clientId: request.clientId)))
        #expect(refresh.credential.secret == "refresh-token-secret")

        let account = try #require(try cache.account(username: "idlab@MSIDLAB4.onmicrosoft.com", clientId: request.clientId))
        #expect(account.homeAccountId == saved.homeAccountId)
        #expect(account.tenantProfiles.map(\.isHomeTenant) == [true])
    }
}
