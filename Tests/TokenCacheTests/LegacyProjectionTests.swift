import CacheStore
import Foundation
import KeyedArchive
@testable import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// `TokenCache.search` over legacy ADAL entries: the `Account` and `RefreshToken` entries they stand
/// for in MSAL JSON (read-only projections), and what removing those entries removes.
@Suite struct LegacyProjectionTests {
    static let fixtureClient = LegacyADALTests.fixtureClient
    /// The fixture's ID token: oid 53c6acf2-…, tid 6fd1f5cd-….
    static let fixtureHome = "53c6acf2-2742-4538-918d-e78257ec8516.6fd1f5cd-a94c-4335-889b-6c598e6d8048"
    static let fixtureTenant = "6fd1f5cd-a94c-4335-889b-6c598e6d8048"

    let fixture: CacheFixture
    init() throws { fixture = try CacheFixture() }

    func put(_ item: LegacyTokenCacheItem) throws -> StoreItem {
        let stored = item.storeItem(accessGroup: IDs.group)
        try fixture.put(stored)
        return stored
    }

    static func entry(
        clientId: String, user: String = "legacy.user@contoso.com", oid: String = "legacy-oid", tid: String = IDs.homeTenant,
        resource: String? = nil, refreshToken: String? = "legacy-rt", accessToken: String? = nil, familyId: String? = nil,
        homeAccountId: String? = nil, additionalServer: ArchivedValue? = nil, rawIdToken: String? = nil,
        authority: String = "https://login.windows.net/common"
    ) -> LegacyTokenCacheItem {
        LegacyTokenCacheItem(
            authority: authority, resource: resource, clientId: clientId, accessToken: accessToken,
            refreshToken: refreshToken, familyId: familyId,
            rawIdToken: rawIdToken ?? TokenResponses.idToken(["upn": .string(user), "tid": .string(tid), "oid": .string(oid)]),
            homeAccountId: homeAccountId, additionalServer: additionalServer)
    }

    func search(_ kind: CacheSearch.Kind, _ query: JSONObject = [:]) throws -> [JSONObject] {
        try fixture.cache.search(CacheSearch(kind: kind, query: query))
    }

    @Test func theADAL1xFixtureIsAnMSALAccountWithItsRefreshToken() throws {
        let data = try Data(contentsOf: LegacyADALTests.fixtures.appendingPathComponent("adal1x-token-cache-store-item.bplist"))
        let key = LegacyCacheKey(authority: "https://login.microsoftonline.com/common", resource: nil,
                                 clientId: Self.fixtureClient, userId: LegacyADALTests.fixtureUser)
        try fixture.put(StoreItem(accessGroup: IDs.group, account: key.account, service: key.service,
                                  generic: LegacyCacheKey.generic, data: data))
        let accounts = try search(.account, ["environment": "login.microsoftonline.com"])
        #expect(accounts == [[
            "home_account_id": .string(Self.fixtureHome), "environment": "login.microsoftonline.com",
            "realm": .string(Self.fixtureTenant), "username": "myfakeuser@contoso.com", "authority_type": "MSSTS",
            "local_account_id": "53c6acf2-2742-4538-918d-e78257ec8516",
        ]])
        // MSAL Python's own-client query, then its family query.
        let mine = try search(.refreshToken, [
            "environment": "login.microsoftonline.com", "home_account_id": .string(Self.fixtureHome),
            "client_id": .string(Self.fixtureClient),
        ])
        #expect(mine.count == 1)
        #expect(mine.first?["secret"] == "<refresh token>")
        #expect(mine.first?["credential_type"] == "RefreshToken")
        #expect(mine.first?["family_id"] == nil)
        #expect(try search(.refreshToken, ["home_account_id": .string(Self.fixtureHome), "family_id": "1"]).isEmpty)
        #expect(try search(.refreshToken, ["client_id": .string(Self.fixtureClient.lowercased())]).isEmpty, "client ids compare exactly")
        #expect(try search(.refreshToken, ["environment": "login.windows.net"]).isEmpty, "the host it was stored under")
        #expect(try search(.refreshToken, ["home_account_id": .null]).isEmpty)
        #expect(try search(.accessToken).isEmpty && search(.idToken).isEmpty, "only accounts and refresh tokens are projected")
        #expect(try fixture.allItems().count == 1, "nothing is written")
    }

    @Test func theHomeAccountIdComesFromTheEntryThenClientInfoThenTheIdToken() throws {
        let clientInfo = Base64URL.encode(Data(#"{"uid":"C-UID","utid":"C-UTID"}"#.utf8))
        _ = try put(Self.entry(clientId: IDs.appA, user: "stored@contoso.com", homeAccountId: IDs.home))
        _ = try put(Self.entry(clientId: IDs.appA, user: "info@contoso.com", oid: "ignored",
                               additionalServer: .dictionary([("client_info", .string(clientInfo))])))
        _ = try put(Self.entry(clientId: IDs.appA, user: "claims@contoso.com", oid: "OID-1"))
        let homes = try search(.account).compactMap { $0["home_account_id"]?.stringValue }
        #expect(homes == [IDs.home, "c-uid.c-utid", "oid-1.\(IDs.homeTenant)"])
        #expect(try search(.refreshToken, ["home_account_id": "c-uid.c-utid"]).count == 1)
        // ADFS sends no client info: MSAL Python's home account id is the ID token's `sub`.
        _ = try put(Self.entry(clientId: IDs.appA, rawIdToken: TokenResponses.idToken(["upn": "adfs.user@contoso.com", "sub": "Sub-ADFS"]),
                               authority: "https://adfs.contoso.com/adfs"))
        let adfs = try #require(try search(.account, ["environment": "adfs.contoso.com"]).first)
        #expect(adfs["home_account_id"] == "Sub-ADFS" && adfs["realm"] == "adfs" && adfs["authority_type"] == "ADFS")
        #expect(try search(.refreshToken, ["home_account_id": "Sub-ADFS", "environment": "adfs.contoso.com"]).count == 1)
    }

    @Test func familyEntriesCarryTheirFamilyAndMultiResourceOnesOnly() throws {
        _ = try put(Self.entry(clientId: IDs.appA, familyId: "1"))
        _ = try put(Self.entry(clientId: "foci-1", refreshToken: "family-rt"))
        _ = try put(Self.entry(clientId: IDs.appB, resource: "https://graph.windows.net", refreshToken: "single-rt", accessToken: "at"))
        _ = try put(Self.entry(clientId: IDs.appC, resource: "https://graph.windows.net", refreshToken: nil, accessToken: "at"))
        let home = "legacy-oid.\(IDs.homeTenant)"
        let family = try search(.refreshToken, ["home_account_id": .string(home), "environment": "login.windows.net", "family_id": "1"])
        #expect(family.map { $0["client_id"] } == [.string(IDs.appA), "foci-1"])
        #expect(family.map { $0["secret"] } == ["legacy-rt", "family-rt"])
        #expect(try search(.refreshToken).count == 2, "single-resource and access-token entries stand for no MSAL refresh token")
        #expect(try search(.account).count == 1, "one user, one account")
    }

    @Test func severalUsersEachHaveTheirAccount() throws {
        for number in 1...3 {
            _ = try put(Self.entry(clientId: IDs.appA, user: "user\(number)@contoso.com", oid: "oid-\(number)", refreshToken: "rt-\(number)"))
            _ = try put(Self.entry(clientId: IDs.appB, user: "user\(number)@contoso.com", oid: "oid-\(number)", refreshToken: "rt-b-\(number)"))
        }
        #expect(try search(.account).compactMap { $0["username"]?.stringValue } == ["user1@contoso.com", "user2@contoso.com", "user3@contoso.com"])
        let second = try search(.refreshToken, ["home_account_id": .string("oid-2.\(IDs.homeTenant)")])
        #expect(second.compactMap { $0["secret"]?.stringValue } == ["rt-2", "rt-b-2"])
    }

    @Test func unifiedItemsWinOverTheProjectionsOfTheSameKey() throws {
        _ = try put(Self.entry(clientId: IDs.appA, homeAccountId: IDs.home))
        _ = try put(Self.entry(clientId: IDs.appB, refreshToken: "legacy-rt-b", homeAccountId: IDs.home))
        try fixture.save()  // app A, the same home account, login.windows.net
        let tokens = try search(.refreshToken, ["home_account_id": .string(IDs.home)])
        #expect(tokens.compactMap { $0["secret"]?.stringValue } == ["refresh-token-secret", "legacy-rt-b"])
        let accounts = try search(.account, ["home_account_id": .string(IDs.home)])
        #expect(accounts.count == 1 && accounts.first?["local_account_id"] == .string(IDs.uid), "the unified account")
    }

    @Test func aGuestsGuessedHomeIsNotShownBesideTheirUnifiedAccount() throws {
        try fixture.save()
        // The same user's ADAL entry from a guest tenant: its oid.tid is not their home account id.
        _ = try put(Self.entry(clientId: IDs.appB, user: IDs.username, oid: "guest-oid", tid: IDs.guestTenant))
        #expect(try search(.account).compactMap { $0["home_account_id"]?.stringValue } == [IDs.home])
        #expect(try search(.refreshToken, ["client_id": .string(IDs.appB)]).count == 1, "its refresh token is still there")
    }

    @Test func entriesWithoutAUserOrWithMalformedUserInformationAreSkipped() throws {
        _ = try put(Self.entry(clientId: IDs.appA, user: "good@contoso.com"))
        _ = try put(Self.entry(clientId: IDs.appB, rawIdToken: "not-an-id-token"))
        _ = try put(Self.entry(clientId: IDs.appC, rawIdToken: TokenResponses.idToken(["upn": "no-oid@contoso.com"])))
        let archive = ArchivedObject(className: "ADTokenCacheStoreItem", fields: [
            .init("authority", .string("https://login.windows.net/common")), .init("clientId", .string("broken")),
            .init("refreshToken", .string("broken-rt")), .init("userInformation", .string("not an object")),
        ])
        let key = LegacyCacheKey(authority: "https://login.windows.net/common", resource: nil, clientId: "broken", userId: "broken@contoso.com")
        try fixture.put(StoreItem(accessGroup: IDs.group, account: key.account, service: key.service,
                                  generic: LegacyCacheKey.generic, data: KeyedArchive.encode(root: .object(archive))))
        #expect(try search(.account).compactMap { $0["username"]?.stringValue } == ["good@contoso.com"])
        #expect(try search(.refreshToken).count == 1)
        let unreadable = try fixture.cache.unreadableItems()
        #expect(unreadable.count == 1)
        #expect(unreadable.first?.description.contains("userInformation") == true)
        #expect(unreadable.first?.description.contains("broken-rt") == false, "no secret in the report")
    }

    @Test func removingProjectedEntriesRemovesTheLegacyEntriesTheyStandFor() throws {
        let mine = try put(Self.entry(clientId: IDs.appA))
        let theirs = try put(Self.entry(clientId: IDs.appB, refreshToken: "their-rt"))
        let accessToken = try put(Self.entry(clientId: IDs.appA, resource: "https://graph.windows.net", refreshToken: nil, accessToken: "at"))
        let otherUser = try put(Self.entry(clientId: IDs.appA, user: "other@contoso.com", oid: "other-oid"))
        let home = "legacy-oid.\(IDs.homeTenant)"
        let token = try #require(try search(.refreshToken, ["home_account_id": .string(home), "client_id": .string(IDs.appA)]).first)
        #expect(try fixture.cache.legacySources(of: [(.refreshToken, token)]) == [mine.identity])
        var changed = token
        changed["secret"] = "another-rt"
        #expect(try fixture.cache.legacySources(of: [(.refreshToken, changed)]) == [mine.identity], "a newer token of the client shadows it")
        changed["client_id"] = .string(IDs.appB)
        #expect(try fixture.cache.legacySources(of: [(.refreshToken, changed)]) == [theirs.identity], "only that client's")

        let account = try #require(try search(.account, ["home_account_id": .string(home)]).first)
        let sources = try fixture.cache.legacySources(of: [(.account, account)])
        #expect(sources == [accessToken.identity], "the user's access tokens, never another app's refresh token")
        #expect(!sources.contains(otherUser.identity) && !sources.contains(theirs.identity))
        // As MSAL Python removes an account: this app's refresh token first, then the account.
        try fixture.cache.apply((try fixture.cache.legacySources(of: [(.refreshToken, token)]) + sources).map { .delete($0.query) })
        let left = Set(try fixture.allItems().map(\.identity))
        #expect(!left.contains(mine.identity) && !left.contains(accessToken.identity))
        #expect(left.contains(theirs.identity) && left.contains(otherUser.identity))
        // App B still holds the user: the account is projected from its token again.
        #expect(Set(try search(.account).compactMap { $0["username"]?.stringValue }).count == 2)
    }

    /// Seeded, so a failure names a case that can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(arguments: 1...40) func projectionsHoldTheirRulesForAnyMixOfEntries(seed: UInt64) throws {
        let fixture = try CacheFixture()
        var random = SplitMix(state: seed)
        for index in 0..<Int.random(in: 1...12, using: &random) {
            let user = Int.random(in: 0..<3, using: &random)
            let client = ["client-a", "Client-B", "foci-1"].randomElement(using: &random)!
            let item = Self.entry(
                clientId: client, user: "user\(user)@contoso.com", oid: "oid-\(user)",
                resource: Bool.random(using: &random) ? nil : "https://graph.windows.net",
                refreshToken: Int.random(in: 0..<4, using: &random) == 0 ? nil : "rt-\(index)",
                accessToken: Bool.random(using: &random) ? "at-\(index)" : nil,
                familyId: Bool.random(using: &random) ? "1" : nil,
                homeAccountId: Int.random(in: 0..<3, using: &random) == 0 ? "uid-\(user).utid" : nil,
                rawIdToken: Int.random(in: 0..<6, using: &random) == 0 ? "garbage" : nil,
                authority: ["https://login.windows.net/common", "https://login.windows.net/organizations",
                            "https://login.microsoftonline.de/common"].randomElement(using: &random)!)
            guard item.refreshToken != nil || item.accessToken != nil else { continue }
            try fixture.put(item.storeItem(accessGroup: IDs.group))
        }
        let index = try fixture.cache.withIndex { $0 }
        let live = index.legacyTokensByUser.values.flatMap { $0 }
        let accounts = try fixture.cache.search(CacheSearch(kind: .account))
        let tokens = try fixture.cache.search(CacheSearch(kind: .refreshToken))
        func text(_ entry: JSONObject, _ name: String) -> String { entry[name]?.stringValue ?? "" }
        // One entry per MSAL cache key, as MSAL's own cache holds them.
        #expect(Set(accounts.map { [text($0, "home_account_id"), text($0, "environment"), text($0, "realm")] }).count == accounts.count, "seed \(seed)")
        #expect(Set(tokens.map { [text($0, "home_account_id"), text($0, "environment"), text($0, "client_id").lowercased()] }).count == tokens.count, "seed \(seed)")
        // Every refresh-capable, multi-resource entry with a user is behind exactly the token of its key.
        for token in live where token.hasRefreshToken && token.item.resource == nil {
            guard let user = LegacyUser(token) else {
                #expect(token.item.rawIdToken == "garbage", "seed \(seed): only an entry without claims has no user")
                continue
            }
            #expect(tokens.contains { text($0, "home_account_id") == user.homeAccountId && text($0, "environment") == token.environment
                && text($0, "client_id").lowercased() == token.item.clientId.lowercased() }, "seed \(seed)")
            #expect(accounts.contains { text($0, "home_account_id") == user.homeAccountId && text($0, "environment") == token.environment }, "seed \(seed)")
        }
        // Removing a projected token removes only that client's refresh-token entries of that user
        // and environment; removing an account removes only that user's entries without a refresh
        // token (another app's refresh token stays).
        for token in tokens {
            let sources = try fixture.cache.legacySources(of: [(.refreshToken, token)])
            #expect(!sources.isEmpty, "seed \(seed)")
            for source in sources {
                let item = try #require(live.first { $0.identity == source })
                #expect(item.item.clientId == text(token, "client_id") && item.hasRefreshToken && item.environment == text(token, "environment"), "seed \(seed)")
                #expect(LegacyUser(item)?.homeAccountId == text(token, "home_account_id"), "seed \(seed)")
            }
        }
        for account in accounts {
            for source in try fixture.cache.legacySources(of: [(.account, account)]) {
                let item = try #require(live.first { $0.identity == source })
                #expect(LegacyUser(item)?.homeAccountId == text(account, "home_account_id") && item.environment == text(account, "environment"), "seed \(seed)")
                #expect(!item.hasRefreshToken, "seed \(seed): never a refresh token")
            }
        }
        #expect(try fixture.allItems().count == live.count + index.unreadable.count + index.tombstones.count, "seed \(seed): nothing written")
    }
}
