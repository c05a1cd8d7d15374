import CacheStore
import Foundation
@testable import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// `TokenCache.search`: MSAL Python 1.39's `TokenCache.search` over the engine's index.
@Suite struct SearchTests {
    private func fixture() throws -> CacheFixture {
        let fixture = try CacheFixture()
        try fixture.save()
        try fixture.save(clientId: IDs.appB)
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com", scope: "Mail.Read"))
        return fixture
    }

    @Test func accessTokensByAccountClientAndRealmWithATargetSubset() throws {
        let fixture = try fixture()
        let query: JSONObject = [
            "home_account_id": .string(IDs.home), "environment": "LOGIN.WINDOWS.NET",
            "client_id": .string(IDs.appA), "realm": .string(IDs.homeTenant),
        ]
        let found = try fixture.cache.search(CacheSearch(kind: .accessToken, query: query, target: ["User.Read", "email"]))
        #expect(found.count == 1)
        #expect(found.first?["secret"] == "access-token-secret")
        #expect(found.first?["credential_type"] == "AccessToken")
        #expect(found.first?["ext_expires_on"] != nil, "in the MSAL JSON entry form")
        #expect(try fixture.cache.search(CacheSearch(kind: .accessToken, query: query, target: ["user.read"])).isEmpty, "scopes compare exactly")
        #expect(try fixture.cache.search(CacheSearch(kind: .accessToken, query: query, target: ["Mail.Read"])).isEmpty)
    }

    @Test func membersMatchExactlyAndEveryMemberMustBePresent() throws {
        let fixture = try fixture()
        #expect(try fixture.cache.search(CacheSearch(kind: .refreshToken, query: ["client_id": .string(IDs.appB)])).count == 1)
        #expect(try fixture.cache.search(CacheSearch(kind: .refreshToken, query: ["client_id": .string(IDs.appB.uppercased())])).isEmpty)
        #expect(try fixture.cache.search(CacheSearch(kind: .refreshToken, query: ["no_such_member": "x"])).isEmpty)
        let all = try fixture.cache.search(CacheSearch(kind: .refreshToken))
        #expect(all.count == 3)
        #expect(all.map { $0["client_id"] } == [.string(IDs.appA), .string(IDs.appB), .string(IDs.appA)], "in the store's order")
        let mine = try fixture.cache.search(CacheSearch(kind: .refreshToken, query: ["home_account_id": .string(IDs.home)]))
        #expect(mine.count == 2)
    }

    @Test func accountsIdTokensAndAppMetadata() throws {
        let fixture = try fixture()
        let accounts = try fixture.cache.search(CacheSearch(kind: .account, query: ["environment": "login.windows.net"]))
        #expect(Set(accounts.compactMap { $0["home_account_id"]?.stringValue }) == [IDs.home, IDs.home2])
        #expect(accounts.allSatisfy { $0["authority_type"] == "MSSTS" })
        let idTokens = try fixture.cache.search(CacheSearch(kind: .idToken, query: ["home_account_id": .string(IDs.home2)]))
        #expect(idTokens.count == 1)
        let apps = try fixture.cache.search(CacheSearch(kind: .appMetadata, query: ["client_id": .string(IDs.appB)]))
        #expect(apps.count == 1 && apps.first?["environment"] == "login.windows.net")
        #expect(try fixture.cache.search(CacheSearch(kind: .appMetadata)).count == 2)
    }

    @Test func expiredAccessTokensAreLeftOutAndNullMatchesAnAbsentMember() throws {
        let fixture = try fixture()
        let query: JSONObject = ["client_id": .string(IDs.appA), "home_account_id": .string(IDs.home)]
        #expect(try fixture.cache.search(CacheSearch(kind: .accessToken, query: query)).count == 1)
        #expect(try fixture.cache.search(CacheSearch(kind: .accessToken, query: query, now: fixture.now + 7200)).isEmpty)
        fixture.clock.advance(by: 7200)
        #expect(try fixture.cache.search(CacheSearch(kind: .accessToken, query: query)).isEmpty)
        // No app token was saved: null names app tokens (no home account) and finds none here.
        #expect(try fixture.cache.search(CacheSearch(kind: .refreshToken, query: ["home_account_id": .null])).isEmpty)
        #expect(try fixture.cache.search(CacheSearch(kind: .refreshToken, query: ["family_id": .null])).count == 3)
    }

    @Test func anotherWritersSaveIsSeenByTheNextSearch() throws {
        let fixture = try fixture()
        let other = try TokenCache(store: fixture.store)
        try other.save(TokenResponses.aad(uid: "3c1f0000-0000-0000-0000-000000000003"), for: CacheFixture.request(clientId: IDs.appC))
        #expect(try fixture.cache.search(CacheSearch(kind: .refreshToken, query: ["client_id": .string(IDs.appC)])).count == 1)
    }

    @Test func targetsSplitAsPythonSplitsThem() {
        #expect(TokenCache.words(" a\tb\u{1F}c\u{85}d  e ").map(String.init) == ["a", "b", "c", "d", "e"])
        #expect(TokenCache.words("").isEmpty)
        #expect(TokenCache.words("Ünïcode scope").map(String.init) == ["Ünïcode", "scope"])
    }
}
