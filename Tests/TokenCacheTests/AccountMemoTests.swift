import CacheStore
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import TestSupport
import TokenCache
import TokenCacheSchema
import Testing

/// After a change the engine rebuilds only the account answers the change touched and carries the
/// others from the state before. Whatever the sequence of saves, removals, sign-outs, family changes
/// and other writers' commits, every listing and account must equal what an engine that just read
/// the store answers.
@Suite struct AccountMemoTests {
    static let clients = ["client-a", "client-b", "client-c"]
    static let environments: [String?] = [nil, "login.microsoftonline.com", "login.windows.net"]

    static func answers(_ cache: TokenCache) throws -> [[CachedAccount]] {
        var result: [[CachedAccount]] = []
        for client in [nil] + clients.map(Optional.some) {
            for environment in environments {
                result.append(try cache.accounts(clientId: client, environment: environment))
            }
            var singles: [CachedAccount] = []
            for user in 0..<8 {
                if let account = try cache.account(identifier: "uid\(user).tid\(user % 3)", clientId: client) { singles.append(account) }
                if let account = try cache.account(username: "User\(user)@Contoso.com", clientId: client) { singles.append(account) }
            }
            result.append(singles)
        }
        return result
    }

    /// One random change through `cache`.
    static func change(_ cache: TokenCache, step: Int, generator: inout SplitMix64) throws {
        let user = Int(generator.next() % 8)
        let client = clients[Int(generator.next() % 3)]
        let home = "uid\(user).tid\(user % 3)"
        switch generator.next() % 10 {
        case 0:
            try cache.removeAccount(homeAccountId: home, clientId: client)
        case 1 where step % 5 == 0:
            try cache.wipeAccount(homeAccountId: home)
        case 2:
            // Credentials alone, no account record: the home's refresh tokens, or its ID tokens.
            let type = generator.next() % 2 == 0 ? CredentialType.refreshToken : CredentialType.idToken
            try cache.apply([.delete(ItemQuery(
                accessGroup: "com.microsoft.adalcache", account: "\(home)-login.windows.net", type: .code(type.typeCode)))])
        default:
            // A guest tenant now and then, a new display name, and client-b moving in and out of the family.
            let tenant = generator.next() % 4 == 0 ? "tid\((user + 1) % 3)" : "tid\(user % 3)"
            let family: String? = client == "client-c" ? nil : (client == "client-b" && generator.next() % 3 == 0 ? nil : "1")
            let response = TokenResponses.aad(
                uid: "uid\(user)", tid: tenant, utid: "tid\(user % 3)", username: "User\(user)@Contoso.com",
                scope: ["User.Read", "Mail.Read openid", "Files.Read"][Int(generator.next() % 3)],
                accessToken: "at-\(step)", refreshToken: "rt-\(step)", foci: family,
                claims: ["name": .string("Name \(generator.next() % 3)")])
            let authority = try Authority("https://login.microsoftonline.com/\(tenant)")
            try cache.save(response, for: TokenRequest(authority: authority, clientId: client, scopes: ["User.Read"]))
        }
    }

    @Test(arguments: ["memory", "sqlite"])
    func carriedAnswersMatchAFreshRead(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let groups = try AccessGroups(["com.microsoft.adalcache"])
        let store: any ItemStore =
            backend == "memory"
            ? MemoryStore(accessGroups: groups)
            : try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: groups)
        let cache = try TokenCache(store: store)
        var generator = SplitMix64(seed: 7)
        for step in 0..<160 {
            try Self.change(cache, step: step, generator: &generator)
            let expected = try Self.answers(try TokenCache(store: store))
            #expect(try Self.answers(cache) == expected, "after step \(step)")
        }
    }

    /// Two engines on one SQLite file: each catches up with the other's commits by partition, and
    /// its carried answers must still match a fresh read.
    @Test func carriedAnswersMatchAfterAnotherWritersCommits() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let groups = try AccessGroups(["com.microsoft.adalcache"])
        let path = directory.path("cache.sqlite")
        let first = try TokenCache(store: try SQLiteStore(path: path, accessGroups: groups))
        let second = try TokenCache(store: try SQLiteStore(path: path, accessGroups: groups))
        let reader = try SQLiteStore(path: path, accessGroups: groups)
        var generator = SplitMix64(seed: 11)
        for step in 0..<120 {
            try Self.change(generator.next() % 2 == 0 ? first : second, step: step, generator: &generator)
            let expected = try Self.answers(try TokenCache(store: reader))
            #expect(try Self.answers(first) == expected, "first engine, after step \(step)")
            #expect(try Self.answers(second) == expected, "second engine, after step \(step)")
        }
    }
}
