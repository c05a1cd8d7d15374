import CacheStore
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import TestSupport
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// An engine in partition mode never reads the whole store, yet files MSAL ObjC's per-app
/// account-metadata item (type 5001) per account as a whole read does: once a lookup or a save has
/// loaded it, with the partitions of the accounts it names, leaving the store as the whole read
/// leaves it.
@Suite struct PartitionModeFilingTests {
    static let group = "com.microsoft.adalcache"
    static let client = "client"

    static func home(_ index: Int) -> String { "u\(index).utid" }

    /// Account records of `accounts` homes and the app's 5001 item: even accounts signed in, odd
    /// ones signed out, one entry of an account the store has no record of, and a principal account.
    static func legacyItems(accounts: Int) throws -> [StoreItem] {
        var items: [StoreItem] = []
        var metadata = AccountMetadata(clientId: client, principalHomeAccountId: home(0))
        for index in 0..<accounts {
            let account = try Account(jsonObject: [
                "authority_type": "MSSTS", "home_account_id": .string(home(index)), "environment": "login.microsoftonline.com",
                "realm": "utid", "local_account_id": .string("u\(index)"), "username": .string("u\(index)@contoso.com"),
            ])
            items.append(try account.storeItem(accessGroup: group))
            metadata.setSignInState(index % 2 == 0 ? .signedIn : .signedOut, homeAccountId: home(index))
        }
        metadata.setSignInState(.signedOut, homeAccountId: "unknown.tenant")
        items.append(try metadata.storeItem(accessGroup: group))
        return items
    }

    /// The store's items by identity, with their payloads.
    static func content(_ store: any ItemStore) throws -> [ItemIdentity: Data] {
        Dictionary(uniqueKeysWithValues: try store.allItems().map { ($0.identity, $0.data) })
    }

    static func open(_ backend: String, _ directory: TemporaryDirectory, name: String = "cache") throws -> any ItemStore {
        backend == "sqlite"
            ? try SQLiteStore(path: directory.path("\(name).sqlite"), accessGroups: try AccessGroups([group]))
            : try PartitionedMemoryStore(groups: [group])
    }

    @Test("a partition engine's first lookup files the app's item as a whole read does; filing again writes nothing", arguments: ["memory", "sqlite"])
    func aLookupFilesTheAppsItem(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let accounts = 6
        let store = try Self.open(backend, directory)
        try store.save(try Self.legacyItems(accounts: accounts))
        let whole = MemoryStore(accessGroups: try AccessGroups([Self.group]))
        try whole.save(try Self.legacyItems(accounts: accounts))
        try whole.fileAccountMetadata()

        let engine = try PartitionModeTests.engine(store, limit: 1_000)
        #expect(try engine.account(identifier: Self.home(0), clientId: Self.client) != nil)
        #expect(try engine.account(identifier: Self.home(1), clientId: Self.client) == nil)
        #expect(try Self.content(store) == Self.content(whole))
        let left = try AccountMetadata(storeItem: try #require(try store.items(matching: ItemQuery(type: .code(5001))).first))
        #expect(Array(left.accounts.keys) == ["unknown.tenant"])
        #expect(left.principalHomeAccountId == Self.home(0))

        // Another engine meets what is left (an entry no record claims) and writes nothing.
        let before = try store.changeStamp()
        let other = try PartitionModeTests.engine(backend == "sqlite" ? try Self.open(backend, directory) : store, limit: 1_000)
        #expect(try other.account(identifier: Self.home(2), clientId: Self.client) != nil)
        #expect(try other.account(identifier: Self.home(3), clientId: Self.client) == nil)
        #expect(try store.changeStamp() == before)
    }

    @Test("a partition engine's first save files the app's item, in batches of accounts")
    func aSaveFilesTheAppsItemInBatches() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let accounts = 150  // more than one filing batch
        try store.save(try Self.legacyItems(accounts: accounts))
        let engine = try PartitionModeTests.engine(store, limit: 100)
        try PartitionModeTests.save(engine, user: 1, step: 1)
        let own = try store.items(matching: ItemQuery(type: .code(ItemTypeCode.accountSignIn))).map { try AccountSignIn(storeItem: $0) }
        // Every legacy account's state, and the new user's for its app.
        #expect(own.filter { $0.clientId == Self.client }.count == accounts)
        #expect(Set(own.filter { $0.clientId == Self.client }.map(\.homeAccountKey)) == Set((0..<accounts).map(Self.home)))
        #expect(own.filter { $0.clientId == Self.client && $0.entry.signInState == .signedOut }.count == accounts / 2)
        let left = try AccountMetadata(storeItem: try #require(try store.items(matching: ItemQuery(type: .code(5001))).first))
        #expect(Array(left.accounts.keys) == ["unknown.tenant"])
        // The answers are what they were.
        let reader = try PartitionModeTests.engine(store, limit: 1_000)
        for index in [0, 1, 64, 65, 149] {
            #expect((try reader.account(identifier: Self.home(index), clientId: Self.client) != nil) == (index % 2 == 0))
        }
    }

    @Test("engines on separate connections filing at once file each account once")
    func concurrentEnginesFileOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let accounts = 80
        try Self.open("sqlite", directory).save(try Self.legacyItems(accounts: accounts))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for engineNumber in 0..<4 {
                group.addTask {
                    let engine = try PartitionModeTests.engine(try Self.open("sqlite", directory), limit: 1_000)
                    _ = try engine.account(identifier: Self.home(engineNumber), clientId: Self.client)
                }
            }
            try await group.waitForAll()
        }
        let store = try Self.open("sqlite", directory)
        let own = try store.items(matching: ItemQuery(type: .code(ItemTypeCode.accountSignIn)))
        #expect(own.count == accounts)
        #expect(Set(own.map(\.account)).count == accounts)
        let left = try AccountMetadata(storeItem: try #require(try store.items(matching: ItemQuery(type: .code(5001))).first))
        #expect(Array(left.accounts.keys) == ["unknown.tenant"])
    }
}
