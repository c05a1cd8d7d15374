import CacheStore
import CacheStoreMemory
import Foundation
import KeyedArchive
import TokenCache
import TokenCacheSchema
import TestSupport
import Testing

/// Legacy ADAL entries (`MSOpenTech.ADAL.1|…` keyed archives) in the engine: accounts, refresh tokens
/// by username (ADAL → MSAL single sign-on), removal, and ADAL ≥ 2.7 compatible writing.
@Suite struct LegacyADALTests {
    static let fixtures = Fixtures.url("adal-objc")
    static let fixtureClient = "27AD83C9-FC05-4A6C-AF01-36EDA42ED18F"
    static let fixtureUser = "myfakeuser@contoso.com"

    let fixture: CacheFixture
    init() throws { fixture = try CacheFixture() }

    /// The ADAL 1.x multi-resource-shaped fixture, stored where ADAL keeps it.
    func putFixture() throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("adal1x-token-cache-store-item.bplist"))
        let key = LegacyCacheKey(authority: "https://login.microsoftonline.com/common", resource: nil,
                                 clientId: Self.fixtureClient, userId: Self.fixtureUser)
        try fixture.put(StoreItem(accessGroup: IDs.group, account: key.account, service: key.service,
                                  generic: LegacyCacheKey.generic, data: data))
    }

    static func legacyEntry(
        clientId: String, user: String = fixtureUser, resource: String? = nil, refreshToken: String? = "legacy-rt",
        accessToken: String? = nil, homeAccountId: String? = nil, authority: String = "https://login.windows.net/common"
    ) -> LegacyTokenCacheItem {
        LegacyTokenCacheItem(
            authority: authority, resource: resource, clientId: clientId, accessToken: accessToken,
            refreshToken: refreshToken,
            rawIdToken: TokenResponses.idToken(["upn": .string(user), "tid": .string(IDs.homeTenant), "oid": "legacy-oid", "name": "Legacy User"]),
            homeAccountId: homeAccountId)
    }

    @Test func theADAL1xFixtureIsListedAndYieldsItsRefreshTokenByUsername() throws {
        try putFixture()
        let accounts = try fixture.cache.accounts()
        #expect(accounts.count == 1)
        let account = try #require(accounts.first)
        #expect(account.source == .legacyADAL)
        #expect(account.username == Self.fixtureUser)
        #expect(account.homeAccountId == "", "ADAL 1.x entries carry no home account id")
        #expect(account.environment == "login.microsoftonline.com")
        #expect(account.tenantProfiles.first?.realm == "6fd1f5cd-a94c-4335-889b-6c598e6d8048")
        #expect(account.tenantProfiles.first?.localAccountId == "53c6acf2-2742-4538-918d-e78257ec8516")

        let token = try #require(try fixture.cache.refreshToken(RefreshTokenQuery(
            subject: .username("MyFakeUser@Contoso.com"), clientId: Self.fixtureClient.lowercased(),
            environment: "login.windows.net")))
        #expect(token.source == .legacyADAL)
        #expect(token.credential.secret == "<refresh token>")
        #expect(try fixture.cache.account(username: "MYFAKEUSER@contoso.com")?.source == .legacyADAL)
        #expect(try fixture.cache.accounts(clientId: Self.fixtureClient).count == 1, "the app's own entry signs it in")
        #expect(try fixture.cache.accounts(clientId: IDs.appB).isEmpty)
    }

    @Test func aUnifiedAccountStandsForTheSameUser() throws {
        try fixture.put(Self.legacyEntry(clientId: IDs.appA, user: IDs.username).storeItem(accessGroup: IDs.group))
        try fixture.save()
        let accounts = try fixture.cache.accounts()
        #expect(accounts.map(\.source) == [.unified], "same username: the legacy account is a duplicate")

        let other = try CacheFixture()
        try other.put(Self.legacyEntry(clientId: IDs.appA, user: "someone.else@contoso.com", homeAccountId: IDs.home).storeItem(accessGroup: IDs.group))
        try other.save()
        #expect(try other.cache.accounts().map(\.source) == [.unified], "same home account id: a duplicate")
    }

    @Test func legacyEntriesFollowTheRefreshTokenRules() throws {
        try fixture.put(Self.legacyEntry(clientId: "foci-1", refreshToken: "family-rt").storeItem(accessGroup: IDs.group))
        try fixture.put(Self.legacyEntry(clientId: IDs.appA, resource: "https://graph.windows.net", refreshToken: nil, accessToken: "at").storeItem(accessGroup: IDs.group))
        let byFamily = try fixture.cache.refreshToken(RefreshTokenQuery(subject: .username(Self.fixtureUser), clientId: IDs.appB, familyId: "1"))
        #expect(byFamily?.credential.secret == "family-rt")
        #expect(byFamily?.credential.familyId == "1")
        #expect(try fixture.cache.refreshToken(RefreshTokenQuery(subject: .username(Self.fixtureUser), clientId: IDs.appA)) == nil,
                "an access-token entry has no refresh token")
        #expect(try fixture.cache.refreshToken(RefreshTokenQuery(subject: .username(Self.fixtureUser), clientId: "foci-1",
                                                                  environment: "login.partner.microsoftonline.cn")) == nil)
    }

    @Test func removalDeletesTheAppsLegacyEntriesAndWipeDeletesAll() throws {
        try fixture.save()
        let mine = Self.legacyEntry(clientId: IDs.appA, user: IDs.username).storeItem(accessGroup: IDs.group)
        let mineUpperCase = Self.legacyEntry(clientId: IDs.appA.uppercased(), user: IDs.username, resource: "r").storeItem(accessGroup: IDs.group)
        let theirs = Self.legacyEntry(clientId: IDs.appB, user: IDs.username).storeItem(accessGroup: IDs.group)
        try fixture.put(mine)
        try fixture.put(mineUpperCase)
        try fixture.put(theirs)

        let removed = try fixture.cache.removeAccount(homeAccountId: IDs.home, clientId: IDs.appA)
        #expect(removed.deleted.contains(mine.identity))
        #expect(!removed.deleted.contains(mineUpperCase.identity), "ObjC compares legacy client ids exactly")
        #expect(!removed.deleted.contains(theirs.identity))
        #expect(removed.wroteWipeRecord)
        #expect(try fixture.store.item(mine.identity) == nil)
        #expect(try fixture.store.item(theirs.identity) != nil)

        try fixture.cache.wipeAccount(homeAccountId: IDs.home)
        #expect(try fixture.store.item(theirs.identity) == nil)
        #expect(try fixture.store.item(mineUpperCase.identity) == nil)
    }

    @Test func legacyTombstonesAreDeletedAndNeverReturned() throws {
        let tombstone = Self.legacyEntry(clientId: IDs.appA, refreshToken: LegacyTokenCacheItem.tombstoneRefreshToken)
            .storeItem(accessGroup: IDs.group)
        try fixture.put(tombstone)
        #expect(try fixture.cache.refreshToken(RefreshTokenQuery(subject: .username(Self.fixtureUser), clientId: IDs.appA)) == nil)
        #expect(try fixture.cache.accounts().isEmpty)
        #expect(try fixture.store.item(tombstone.identity) == nil)
    }

    @Test func adal27CompatibleWritingLeavesEntriesADALFinds() throws {
        let store = MemoryStore(accessGroups: try AccessGroups([IDs.group]))
        let cache = try TokenCache(store: store, configuration: .init(writesLegacyADALItems: true))
        var request = try CacheFixture.request()
        request.resource = "https://graph.microsoft.com"
        try cache.save(TokenResponses.aad(foci: "1"), for: request)

        // ADAL looks entries up by key: preferred cache host, the request's tenant, the user's UPN.
        func entry(resource: String?, clientId: String) throws -> LegacyTokenCacheItem? {
            let key = LegacyCacheKey(authority: "https://login.windows.net/common", resource: resource, clientId: clientId, userId: IDs.username)
            return try store.item(key.identity(accessGroup: IDs.group)).map { try LegacyTokenCacheItem(archive: $0.data) }
        }
        let multiResource = try #require(try entry(resource: nil, clientId: IDs.appA))
        #expect(multiResource.refreshToken == "refresh-token-secret")
        #expect(multiResource.accessToken == nil)
        #expect(multiResource.familyId == "1")
        #expect(multiResource.homeAccountId == IDs.home)
        #expect(multiResource.idTokenClaims?["preferred_username"]?.stringValue == IDs.username)
        let family = try #require(try entry(resource: nil, clientId: "foci-1"))
        #expect(family.refreshToken == "refresh-token-secret")
        let accessToken = try #require(try entry(resource: "https://graph.microsoft.com", clientId: IDs.appA))
        #expect(accessToken.accessToken == "access-token-secret")
        #expect(accessToken.refreshToken == nil)
        #expect(accessToken.expiresOn != nil)

        // Off by default.
        let plain = try CacheFixture()
        try plain.save(TokenResponses.aad(foci: "1"))
        #expect(try plain.allItems().allSatisfy { $0.generic != LegacyCacheKey.generic })
        // And the unified account still stands for the user: no duplicate legacy account.
        #expect(try cache.accounts().map(\.source) == [.unified])
    }
}
