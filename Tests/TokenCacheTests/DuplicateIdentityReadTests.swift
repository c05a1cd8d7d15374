import CacheStore
import CacheStoreMemory
import Foundation
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// A store whose whole read returns some identities twice, in chunks of its own size: what a store
/// file written by other software (no unique index) can hand over. The index must end as if the
/// items had been saved in that order: the later item of an identity wins, and nothing of the
/// earlier one is left behind.
final class RepeatingStore: MemoryBackedStore {
    let base: MemoryStore
    /// The items the whole read returns, in order, repeats included.
    let returned: [StoreItem]
    let chunk: Int

    init(_ base: MemoryStore, returning returned: [StoreItem], chunk: Int) {
        self.base = base
        self.returned = returned
        self.chunk = chunk
    }

    func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws {
        var start = 0
        while start < returned.count {
            receive(Array(returned[start..<min(returned.count, start + chunk)]))
            start += chunk
        }
    }
}

@Suite struct DuplicateIdentityReadTests {
    static let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_100) }

    static func accessToken(_ secret: String, home: String = IDs.home, scope: String = "User.Read") throws -> StoreItem {
        let payload: JSONObject = [
            "credential_type": "AccessToken", "secret": .string(secret), "home_account_id": .string(home),
            "environment": "login.windows.net", "client_id": .string(IDs.appA), "realm": .string(IDs.homeTenant),
            "target": .string(scope), "cached_at": "1700000000", "expires_on": "4102444800",
        ]
        return try Credential(jsonObject: payload).storeItem(accessGroup: IDs.group)
    }

    static func query(home: String = IDs.home, scope: String = "User.Read") -> AccessTokenQuery {
        AccessTokenQuery(homeAccountId: home, environment: "login.windows.net", realm: IDs.homeTenant, clientId: IDs.appA, scopes: [scope])
    }

    /// Hundreds of other tokens, so that the read spans several of the engine's chunks.
    static func filler(_ count: Int) throws -> [StoreItem] {
        try (0..<count).map { try accessToken("filler-\($0)", home: "filler-\($0).\(IDs.homeTenant)") }
    }

    @Test(arguments: [1, 7, 256, 1_000])
    func theLaterItemOfAnIdentityWins(chunk: Int) throws {
        let filler = try Self.filler(600)
        let early = try Self.accessToken("early")
        let late = try Self.accessToken("late")
        let other = try Self.accessToken("only", scope: "Mail.Read")
        // The repeat of `early` comes hundreds of items later (another chunk), and `other` is
        // repeated right after itself (the same chunk).
        let returned = [early] + filler[..<300] + [other, other, late] + filler[300...]
        let base = MemoryStore(accessGroups: try AccessGroups([IDs.group]))
        _ = try base.save([late, other] + filler)
        let cache = try TokenCache(store: RepeatingStore(base, returning: returned, chunk: chunk), configuration: .init(clock: Self.clock))

        #expect(try cache.accessToken(Self.query())?.credential.secret == "late")
        #expect(try cache.accessToken(Self.query(scope: "Mail.Read"))?.credential.secret == "only")
        #expect(try cache.accessToken(Self.query(home: "filler-450.\(IDs.homeTenant)"))?.credential.secret == "filler-450")
        let found = try cache.search(CacheSearch(kind: .accessToken, query: ["home_account_id": .string(IDs.home)]))
        #expect(found.count == 2, "one entry per identity, not one per item returned")

        // Deleting the identity leaves nothing of either item behind.
        _ = try cache.apply([.delete(ItemQuery(account: late.account, service: late.service, type: .init(late.type)))])
        #expect(try cache.accessToken(Self.query()) == nil)
        #expect(try cache.search(CacheSearch(kind: .accessToken, query: ["home_account_id": .string(IDs.home)])).count == 1)
    }
}
