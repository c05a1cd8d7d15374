import CacheStore
import Foundation
import TokenCache
import TokenCacheSchema
import Testing

/// The engine files each partition under the usernames its accounts hold (hashed), in the same batch
/// as the accounts, and builds the index for a store written before it existed.
@Suite struct LookupKeyTests {
    static let group = CatchUpTests.group

    static func partition(_ user: Int) -> PartitionID {
        PartitionID(accessGroup: group, account: "uid\(user).tid\(user % 2)-login.windows.net")
    }

    static func save(_ cache: TokenCache, user: Int, step: Int = 0, client: String = "client-a") throws {
        try cache.save(CatchUpTests.response(user: user, step: step), for: TokenRequest(authority: CatchUpTests.authority, clientId: client, scopes: ["User.Read"]))
    }

    @Test func aUsernameKeyIsTheHashOfTheNormalizedUsername() {
        // sha256("user@contoso.com"), computed elsewhere.
        let digest = "d24dfead25359b0c562c8a02a6a0e6db8de4a8b235d56e122a75a8e1f2e473ee"
        #expect(LookupKey.username("user@contoso.com") == "u:" + digest)
        #expect(LookupKey.username(" User@CONTOSO.com\n") == "u:" + digest)
        #expect(LookupKey.username("other@contoso.com") != "u:" + digest)
    }

    @Test func savesSetThePartitionsKeys() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let cache = try TokenCache(store: store)
        try Self.save(cache, user: 0)
        try Self.save(cache, user: 1)
        #expect(store.lookupKeys(of: Self.partition(0)) == [LookupKey.username("user0@contoso.com")])
        #expect(store.lookupKeys(of: Self.partition(1)) == [LookupKey.username("User1@Contoso.com")])
        // Partitions without accounts carry none.
        #expect(store.lookupKeys(of: PartitionID(accessGroup: Self.group, account: "login.windows.net")) == nil)
        #expect(store.isComplete(Self.group))
        #expect(try store.partitions(withLookupKey: LookupKey.username("USER1@contoso.com")) == [Self.partition(1)])
    }

    @Test func removingAnAccountRecordClearsItsKey() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let cache = try TokenCache(store: store)
        try Self.save(cache, user: 0)
        try cache.wipeAccount(homeAccountId: "uid0.tid0")
        #expect(try cache.account(identifier: "uid0.tid0") == nil)
        #expect(store.lookupKeys(of: Self.partition(0)) == nil)
        #expect(try store.partitions(withLookupKey: LookupKey.username("user0@contoso.com")) == [])
    }

    @Test func aStoreWrittenWithoutKeysIsIndexedAfterTheFirstRead() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        // Written by a writer that sets no keys: the raw items of two users.
        let other = try PartitionedMemoryStore(groups: [Self.group], keepsLookupKeys: false)
        let writer = try TokenCache(store: other)
        try Self.save(writer, user: 0)
        try Self.save(writer, user: 1)
        _ = try store.apply(try other.allItems().map(StoreOperation.save))
        #expect(try store.partitions(withLookupKey: LookupKey.username("user0@contoso.com")) == nil)

        let cache = try TokenCache(store: store)
        #expect(try cache.account(username: "user1@contoso.com")?.homeAccountId == "uid1.tid1")
        #expect(store.isComplete(Self.group))
        #expect(try store.partitions(withLookupKey: LookupKey.username("user0@contoso.com")) == [Self.partition(0)])
        #expect(try store.partitions(withLookupKey: LookupKey.username("user1@contoso.com")) == [Self.partition(1)])
    }

    @Test func rawWritesThroughApplyKeepingLookupKeysSetKeys() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let other = try PartitionedMemoryStore(groups: [Self.group], keepsLookupKeys: false)
        try Self.save(try TokenCache(store: other), user: 2)
        try store.applyKeepingLookupKeys(try other.allItems().map(StoreOperation.save))
        #expect(store.lookupKeys(of: Self.partition(2)) == [LookupKey.username("user2@contoso.com")])
        // Deleting the account record by a query that names no group empties the keys again.
        let account = try #require(try store.allItems().first { LookupKey.mayCarryKey(type: $0.type) })
        try store.applyKeepingLookupKeys([.delete(ItemQuery(account: account.account, service: account.service, type: .init(account.type)))])
        #expect(store.lookupKeys(of: Self.partition(2)) == nil)
    }

    @Test func aStoreThatKeepsNoKeysGetsNone() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group], keepsLookupKeys: false)
        let cache = try TokenCache(store: store)
        try Self.save(cache, user: 0)
        #expect(store.lookupKeys(of: Self.partition(0)) == nil)
        #expect(try cache.account(username: "user0@contoso.com")?.homeAccountId == "uid0.tid0")
    }
}
