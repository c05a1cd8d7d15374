import CacheStore
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import TestSupport
import TokenCache
import TokenCacheInterchange
import TokenCacheSchema
import Testing

/// The in-memory index follows writes made elsewhere: another engine on the same file, another
/// process (DESIGN.md "Where the speed comes from").
@Suite struct RevalidationTests {
    func sqliteFixture(_ path: String, clock: TestClock = TestClock()) throws -> CacheFixture {
        try CacheFixture(store: try SQLiteStore(path: path, accessGroups: try AccessGroups([IDs.group])), clock: clock)
    }

    @Test func saveThroughASecondEngineOnTheSameFileIsSeenByTheFirst() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let clock = TestClock()
        let first = try sqliteFixture(path, clock: clock)
        let second = try sqliteFixture(path, clock: clock)

        // Warm the first engine's index on the empty store.
        #expect(try first.accessToken() == nil)
        #expect(try first.cache.accounts().isEmpty)

        try second.save()
        #expect(try first.accessToken()?.credential.secret == "access-token-secret")
        #expect(try first.cache.accounts().map(\.homeAccountId) == [IDs.home])

        // And removals the other way round.
        try first.cache.removeAccount(homeAccountId: IDs.home, clientId: IDs.appA)
        #expect(try second.accessToken() == nil)
        #expect(try second.cache.accounts(clientId: IDs.appA).isEmpty)
    }

    @Test func writeByAnotherEngineOnTheSameStoreObjectIsSeen() throws {
        let store = MemoryStore(accessGroups: try AccessGroups([IDs.group]))
        let clock = TestClock()
        let first = try CacheFixture(store: store, clock: clock)
        let second = try CacheFixture(store: store, clock: clock)
        #expect(try first.accessToken() == nil)
        try second.save()
        #expect(try first.accessToken() != nil)
    }

    @Test func writeByAnotherProcessIsSeenByTheNextLookup() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let fixture = try sqliteFixture(path)
        #expect(try fixture.accessToken() == nil)
        #expect(try fixture.cache.account(identifier: IDs.home) == nil)

        // What another app would write: an access token, a refresh token, an account.
        let now = fixture.now
        let items = [
            try UnifiedItem.credential(Credential(
                credentialType: .accessToken, secret: "from-another-process", clientId: IDs.appA, homeAccountId: IDs.home,
                environment: "login.windows.net", realm: IDs.homeTenant, target: "User.Read openid profile",
                cachedAt: now, expiresOn: now + 3600, extendedExpiresOn: now + 7200)).storeItem(accessGroup: IDs.group),
            try UnifiedItem.credential(Credential(
                credentialType: .refreshToken, secret: "rt-from-another-process", clientId: IDs.appA,
                homeAccountId: IDs.home, environment: "login.windows.net")).storeItem(accessGroup: IDs.group),
            try UnifiedItem.account(Account(
                authorityType: .mssts, homeAccountId: IDs.home, environment: "login.windows.net", realm: IDs.homeTenant,
                localAccountId: IDs.uid, username: IDs.username, name: "Imported User",
                clientInfo: TokenResponses.clientInfo(uid: IDs.uid, utid: IDs.homeTenant))).storeItem(accessGroup: IDs.group),
        ].compactMap { $0 }
        #expect(items.count == 3)
        let file = directory.path("items.json")
        try KeychainItemsFormat.encode(items).write(to: URL(fileURLWithPath: file))

        let worker = try ChildProcess("store-worker", ["import", path, IDs.group, file])
        let (status, errors) = worker.wait()
        #expect(status == 0, "\(errors)")
        #expect(worker.lines == ["imported 3"])

        #expect(try fixture.accessToken()?.credential.secret == "from-another-process")
        let account = try #require(try fixture.cache.account(identifier: IDs.home, clientId: IDs.appA))
        #expect(account.name == "Imported User")
        #expect(try fixture.cache.refreshToken(RefreshTokenQuery(subject: .username(IDs.username), clientId: IDs.appA)) != nil)
    }
}
