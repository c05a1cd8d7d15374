import CacheStore
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import TestSupport
import TokenCache
import TokenCacheSchema
import Testing

/// The engine patches its index with its own batches instead of re-reading the store; after any
/// sequence of saves and removals it must answer exactly like an engine that just read the store.
@Suite struct IndexConsistencyTests {
    struct Snapshot: Equatable {
        var accounts: [String]
        var accessTokens: [String?]
        var refreshTokens: [String?]
        var familyTokens: [String?]
    }

    static func snapshot(_ cache: TokenCache, users: Range<Int>, clients: [String]) throws -> Snapshot {
        var result = Snapshot(accounts: [], accessTokens: [], refreshTokens: [], familyTokens: [])
        result.accounts = try cache.accounts().map { "\($0.homeAccountId) \($0.username ?? "") \($0.tenantProfiles.map(\.realm))" }
        for user in users {
            let home = "uid\(user).tid\(user % 2)"
            for client in clients {
                result.accessTokens.append(try cache.accessToken(AccessTokenQuery(
                    homeAccountId: home, environment: "login.microsoftonline.com", realm: "tid\(user % 2)",
                    clientId: client, scopes: ["User.Read"]))?.credential.secret)
                result.refreshTokens.append(try cache.refreshToken(RefreshTokenQuery(
                    subject: .homeAccountId(home), clientId: client))?.credential.secret)
                result.familyTokens.append(try cache.familyRefreshToken(homeAccountId: home, clientId: client)?.credential.secret)
            }
        }
        return result
    }

    /// With `reopening`, the engine is replaced by a newly opened one every ten steps, so that the
    /// changes after it meet access tokens it has not decoded yet.
    @Test(arguments: ["memory", "sqlite"], [false, true])
    func incrementalIndexMatchesAFreshRead(backend: String, reopening: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let groups = try AccessGroups(["com.microsoft.adalcache"])
        let store: any ItemStore =
            backend == "memory"
            ? MemoryStore(accessGroups: groups)
            : try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: groups)
        var cache = try TokenCache(store: store)
        let clients = ["client-a", "client-b", "client-c"]
        let authority = try Authority("https://login.microsoftonline.com/common")
        var generator = SplitMix64(seed: 42)

        for step in 0..<150 {
            let user = Int(generator.next() % 6)
            let client = clients[Int(generator.next() % 3)]
            switch generator.next() % 5 {
            case 0:
                try cache.removeAccount(homeAccountId: "uid\(user).tid\(user % 2)", clientId: client)
            case 1 where step % 7 == 0:
                try cache.wipeAccount(homeAccountId: "uid\(user).tid\(user % 2)")
            default:
                let scopes = ["User.Read", "User.Read Mail.Read", "Files.Read", "Mail.Read User.Read openid"][Int(generator.next() % 4)]
                var response = TokenResponses.aad(
                    uid: "uid\(user)", tid: "tid\(user % 2)", username: "User\(user)@Contoso.com", scope: scopes,
                    accessToken: "at-\(step)", refreshToken: "rt-\(step)", foci: client == "client-c" ? nil : "1")
                response.expiresIn = 3600
                try cache.save(response, for: TokenRequest(authority: authority, clientId: client, scopes: ["User.Read"]))
            }
            if step % 10 == 9 {
                let fresh = try TokenCache(store: store)
                let expected = try Self.snapshot(fresh, users: 0..<6, clients: clients)
                let actual = try Self.snapshot(cache, users: 0..<6, clients: clients)
                #expect(actual.accounts == expected.accounts, "after step \(step)")
                #expect(actual.accessTokens == expected.accessTokens, "after step \(step)")
                #expect(actual.refreshTokens == expected.refreshTokens, "after step \(step)")
                #expect(actual.familyTokens == expected.familyTokens, "after step \(step)")
                if reopening { cache = try TokenCache(store: store) }
            }
        }
    }

    /// What an engine answers right after its own saves is, field for field (not only the secrets
    /// the test above compares), what an engine that reads the saved items back answers: bearer and
    /// PoP access tokens, family and app refresh tokens, ID tokens, and an account merged over a
    /// stored record with a field only that record had.
    @Test(arguments: ["memory", "sqlite"])
    func savedEntriesMatchTheirPayloads(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let groups = try AccessGroups([IDs.group])
        let store: any ItemStore =
            backend == "memory"
            ? MemoryStore(accessGroups: groups)
            : try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: groups)
        let clock = TestClock()
        let cache = try TokenCache(store: store, configuration: .init(clock: { clock.now }))
        // The preferred cache host, which saves write under: the record below is merged over.
        let environment = "login.windows.net"
        // An account record another library wrote, with a field this one does not know.
        var stored = try Account(jsonObject: [
            "home_account_id": .string(IDs.home), "environment": .string(environment), "realm": .string(IDs.homeTenant),
            "authority_type": "MSSTS", "username": .string(IDs.username), "local_account_id": .string(IDs.uid),
            "written_by": "another library",
        ])
        stored.givenName = "Given"
        try store.save(try stored.storeItem(accessGroup: IDs.group))

        try cache.save(
            TokenResponses.aad(scope: "User.Read Mail.Read", accessToken: "at-bearer", foci: "1"),
            for: CacheFixture.request(clientId: IDs.appA, scopes: ["User.Read"]))
        try cache.save(
            TokenResponses.aad(scope: "User.Read", accessToken: "at-pop", tokenType: "pop"),
            for: CacheFixture.request(clientId: IDs.appB, keyId: "key-1"))
        try cache.save(
            TokenResponses.aad(uid: IDs.uid2, username: nil, accessToken: "at-2", refreshToken: "rt-2"),
            for: CacheFixture.request(clientId: IDs.appC, requestedClaims: #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#))

        let fresh = try TokenCache(store: store, configuration: .init(clock: { clock.now }))
        func answers(_ engine: TokenCache) throws -> [AnyHashable?] {
            var all: [AnyHashable?] = []
            for (home, client, tokenType, keyId, claims) in [
                (IDs.home, IDs.appA, nil, nil, nil), (IDs.home, IDs.appB, "pop", "key-1", nil),
                (IDs.home2, IDs.appC, nil, nil, #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#),
            ] as [(String, String, String?, String?, String?)] {
                all.append(try engine.accessToken(AccessTokenQuery(
                    homeAccountId: home, environment: environment, realm: IDs.homeTenant, clientId: client,
                    scopes: ["User.Read"], tokenType: tokenType, keyId: keyId, requestedClaims: claims)))
                all.append(try engine.refreshToken(RefreshTokenQuery(subject: .homeAccountId(home), clientId: client)))
                all.append(try engine.familyRefreshToken(homeAccountId: home, clientId: client))
                all.append(try engine.idToken(homeAccountId: home, clientId: client, environment: environment))
            }
            for account in try engine.accounts() {
                all.append(account)
                for profile in account.tenantProfiles {
                    all.append(profile.account)
                    all.append(profile.idTokenClaims)
                }
            }
            return all
        }
        let expected = try answers(fresh)
        // Each app's access, refresh and ID token, app A's family token, and both users' accounts.
        try #require(expected.count == 12 + 2 * 3)
        for position in [0, 1, 2, 3, 4, 5, 7, 8, 9, 11] { #expect(expected[position] != nil, "answer \(position)") }
        #expect(try answers(cache) == expected)
        let merged = try #require(try fresh.accounts().first { $0.homeAccountId == IDs.home }?.tenantProfiles.first?.account)
        #expect(merged.givenName == "Given")
        #expect(merged.jsonObject["written_by"] == "another library")
    }
}
