import CacheStore
import CacheStoreMemory
import Foundation
import TokenCacheSchema
import Testing

@testable import TokenCache

/// Opening a cache reads access tokens without decoding them; an account's are decoded on its first
/// access-token call (`DeferredAccessTokens`). Every answer must be the one an eager read gives.
@Suite struct DeferredAccessTokenTests {
    static let users = 0..<4

    static func home(_ user: Int) -> String { "uid\(user).\(IDs.homeTenant)" }

    /// A store holding tokens of `users`, written by one engine.
    static func populatedStore(clock: TestClock) throws -> MemoryStore {
        let store = MemoryStore(accessGroups: try AccessGroups([IDs.group]))
        let writer = try CacheFixture(store: store, clock: clock)
        for user in users {
            for (scope, secret) in [("User.Read", "read"), ("Mail.Read", "mail")] {
                try writer.save(TokenResponses.aad(uid: "uid\(user)", username: "user\(user)@contoso.com", scope: scope, accessToken: "\(secret)-\(user)"))
            }
        }
        return store
    }

    static func deferredHomes(_ cache: TokenCache) -> Set<String> {
        cache.state.withLock { Set($0.index.deferred.keys) }
    }

    @Test func anAccountsAccessTokensAreDecodedOnItsFirstLookupOnly() throws {
        let clock = TestClock()
        let store = try Self.populatedStore(clock: clock)
        let reader = try CacheFixture(store: store, clock: clock)
        _ = try reader.cache.accounts()
        #expect(Self.deferredHomes(reader.cache) == Set(Self.users.map(Self.home)), "opening decodes no access token")

        #expect(try reader.accessToken(home: Self.home(1), scopes: ["Mail.Read"])?.credential.secret == "mail-1")
        #expect(Self.deferredHomes(reader.cache) == Set([0, 2, 3].map(Self.home)), "only the account asked for is decoded")
        // Through another alias of the cloud: the same tokens.
        #expect(try reader.accessToken(home: Self.home(2), environment: "login.windows.net")?.credential.secret == "read-2")
        #expect(try reader.accessToken(home: Self.home(3), realm: nil, scopes: ["Mail.Read"])?.credential.secret == "mail-3")
    }

    @Test func aSaveOrARemovalFindsTheTokensNotDecodedYet() throws {
        let clock = TestClock()
        let store = try Self.populatedStore(clock: clock)
        let reader = try CacheFixture(store: store, clock: clock)
        _ = try reader.cache.accounts()
        // A new token whose scopes intersect a stored one replaces it, though no lookup read it.
        try reader.save(TokenResponses.aad(uid: "uid0", username: "user0@contoso.com", scope: "User.Read Files.Read", accessToken: "new-0"))
        let tokens = try store.items(matching: ItemQuery(account: "\(Self.home(0))-login.windows.net", type: .code(2001)))
        #expect(tokens.count == 2, "the User.Read token was replaced, the Mail.Read one kept")
        #expect(try reader.accessToken(home: Self.home(0))?.credential.secret == "new-0")
        #expect(try reader.accessToken(home: Self.home(0), scopes: ["Mail.Read"])?.credential.secret == "mail-0")

        try reader.cache.wipeAccount(homeAccountId: Self.home(2))
        // Its sign-in states for the apps stay (as in MSAL ObjC's account metadata); nothing else does.
        #expect(try store.items(matching: ItemQuery(account: "\(Self.home(2))-login.windows.net")).allSatisfy { $0.type == ItemTypeCode.accountSignIn })
        #expect(try reader.accessToken(home: Self.home(2)) == nil)
        #expect(try reader.accessToken(home: Self.home(3))?.credential.secret == "read-3")
    }

    @Test func anAccessTokenStoredUnderAnotherAccountsAttributeIsNeverReturned() throws {
        let clock = TestClock()
        let store = try Self.populatedStore(clock: clock)
        let early = try CacheFixture(store: store, clock: clock)
        _ = try early.accessToken(home: Self.home(0))
        // Account 1's token, stored under account 0's attribute.
        var item = try #require(try store.items(matching: ItemQuery(account: "\(Self.home(1))-login.windows.net", type: .code(2001))).first)
        item.account = "\(Self.home(0))-login.windows.net"
        item.service += "-moved"
        _ = try store.save(item)
        _ = try store.delete(matching: ItemQuery(account: "\(Self.home(1))-login.windows.net", type: .code(2001)))

        // Met by an engine that was open when it was written, and read by one opened after.
        for cache in [early, try CacheFixture(store: store, clock: clock)] {
            _ = try cache.accessToken(home: Self.home(0))
            #expect(try cache.accessToken(home: Self.home(1), scopes: ["User.Read"]) == nil)
            #expect(try cache.accessToken(home: Self.home(1), scopes: ["Mail.Read"]) == nil)
            let unreadable = try cache.cache.unreadableItems()
            #expect(unreadable.count == 1)
            #expect(unreadable.first?.description.contains("account attribute") == true, "\(unreadable)")
        }
    }

    @Test func theSplitOfAnAccountAttributeNeedsAKnownHost() {
        let hosts = CloudAliases.known.hosts
        #expect(DeferredAccessTokens.split(account: "a-b.c-login.windows.net", hosts: hosts)! == ("a-b.c", "login.windows.net"))
        #expect(DeferredAccessTokens.split(account: "u.t-login-us.microsoftonline.com", hosts: hosts)! == ("u.t", "login-us.microsoftonline.com"))
        #expect(DeferredAccessTokens.split(account: "u.t-contoso.b2clogin.com", hosts: hosts) == nil)
        #expect(DeferredAccessTokens.split(account: "login.windows.net", hosts: hosts) == nil)
        #expect(DeferredAccessTokens.split(account: "-login.windows.net", hosts: hosts)! == ("", "login.windows.net"))
    }

    /// Tokens of an unknown environment are decoded at open; then the same account's other tokens
    /// are too, since a lookup trusts a key with decoded tokens to have no deferred ones.
    @Test func tokensOfAnUnknownEnvironmentAreDecodedAtOpenWithTheirAccountsOthers() throws {
        let clock = TestClock()
        let store = MemoryStore(accessGroups: try AccessGroups([IDs.group]))
        let writer = try CacheFixture(store: store, clock: clock)
        let authority = try Authority("https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/b2c_1_signin")
        try writer.cache.save(
            TokenResponses.aad(scope: "User.Read", accessToken: "b2c"),
            for: TokenRequest(authority: authority, clientId: IDs.appA, scopes: ["User.Read"]))
        try writer.save(TokenResponses.aad(scope: "User.Read", accessToken: "aad"))
        try writer.save(TokenResponses.aad(uid: "uid9", scope: "User.Read", accessToken: "other"))
        let reader = try CacheFixture(store: store, clock: clock)
        _ = try reader.cache.accounts()
        #expect(Self.deferredHomes(reader.cache) == [Self.home(9)])
        let b2c = try #require(try store.items(matching: ItemQuery(type: .code(2001))).first { $0.account.hasSuffix("b2clogin.com") })
        let realm = try #require(try payload(b2c)["realm"]?.stringValue)
        #expect(try reader.accessToken(environment: "contoso.b2clogin.com", realm: realm)?.credential.secret == "b2c")
        #expect(try reader.accessToken(realm: realm)?.credential.secret == "aad")
        #expect(try reader.accessToken(home: Self.home(9))?.credential.secret == "other")
    }
}
