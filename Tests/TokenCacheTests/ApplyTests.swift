import CacheStore
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import Synchronization
import TestSupport
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// A store that counts its full reads, to see whether the engine re-read it.
final class ReadCountingStore: MemoryBackedStore {
    let base: MemoryStore
    let fullReads = Atomic<Int>(0)

    init(_ base: MemoryStore) { self.base = base }

    func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws {
        fullReads.add(1, ordering: .relaxed)
        try base.readAllItems(chunkSize: chunkSize, into: receive)
    }
}

@Suite struct ApplyTests {
    static func accessToken(_ secret: String) throws -> StoreItem {
        let payload: JSONObject = [
            "credential_type": "AccessToken", "secret": .string(secret), "home_account_id": .string(IDs.home),
            "environment": "login.windows.net", "client_id": .string(IDs.appA), "realm": .string(IDs.homeTenant),
            "target": "User.Read", "cached_at": "1700000000", "expires_on": "4102444800",
        ]
        return try Credential(jsonObject: payload).storeItem(accessGroup: IDs.group)
    }

    static let query = AccessTokenQuery(
        homeAccountId: IDs.home, environment: "login.windows.net", realm: IDs.homeTenant, clientId: IDs.appA, scopes: ["User.Read"])

    @Test func itemsAppliedThroughTheEngineKeepItsIndexCurrent() throws {
        let store = ReadCountingStore(MemoryStore(accessGroups: try AccessGroups([IDs.group])))
        let cache = try TokenCache(store: store, configuration: .init(clock: { Date(timeIntervalSince1970: 1_700_000_100) }))
        #expect(try cache.accessToken(Self.query) == nil)
        #expect(store.fullReads.load(ordering: .relaxed) == 1)

        let first = try Self.accessToken("first")
        #expect(try cache.apply([.save(first)]).added == 1)
        #expect(try cache.accessToken(Self.query)?.credential.secret == "first")
        #expect(try cache.apply([.save(try Self.accessToken("second"))]).replaced == 1)
        #expect(try cache.accessToken(Self.query)?.credential.secret == "second")
        #expect(try cache.apply([.delete(ItemQuery(account: first.account, service: first.service, type: .init(first.type)))]).deleted == 1)
        #expect(try cache.accessToken(Self.query) == nil)
        #expect(try cache.apply([]).commit == nil)
        #expect(store.fullReads.load(ordering: .relaxed) == 1, "the engine's own writes must not force a re-read")

        // A write that bypasses the engine is another writer's: the next lookup re-reads.
        try store.base.save(try Self.accessToken("foreign"))
        #expect(try cache.accessToken(Self.query)?.credential.secret == "foreign")
        #expect(store.fullReads.load(ordering: .relaxed) == 2)
    }

    /// Entries an auth library forms itself (MSAL Python writes the app metadata with every token
    /// response) leave a stored app metadata record alone when it is the same, as saves do; a
    /// changed record, or the same one under another generic, is written.
    @Test func appMetadataAppliedAsStoredIsNotWrittenAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups([IDs.group]))
        let cache = try TokenCache(store: store)
        func metadata(family: String) throws -> StoreItem {
            try AppMetadata(clientId: IDs.appA, environment: "login.windows.net", familyId: family).storeItem(accessGroup: IDs.group)
        }
        func revision() throws -> ChangeStamp { try store.readPartition(accessGroup: IDs.group, account: "login.windows.net").revision }
        #expect(try cache.apply([.save(try metadata(family: "1")), .save(try Self.accessToken("first"))]).added == 2)
        let written = try revision()

        let again = try cache.apply([.save(try metadata(family: "1")), .save(try Self.accessToken("second"))])
        #expect(again.replaced == 1 && again.added == 0, "only the access token")
        #expect(try revision() == written)
        #expect(try cache.accessToken(Self.query)?.credential.secret == "second")
        // Only the app metadata, stored as is: nothing to commit.
        #expect(try cache.apply([.save(try metadata(family: "1"))]).commit == nil)
        // A second engine on the file decides from what the store holds.
        let other = try TokenCache(store: try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups([IDs.group])))
        #expect(try other.apply([.save(try metadata(family: "1"))]).commit == nil)
        #expect(try revision() == written)

        // In a batch that also deletes it, or saves it twice, the record is written as the batch says.
        let record = try metadata(family: "1")
        #expect(try cache.apply([.delete(ItemQuery(account: record.account, service: record.service)), .save(record)]).added == 1)
        #expect(try cache.apply([.save(try metadata(family: "")), .save(record)]).replaced == 2)
        #expect(try cache.appMetadata(clientId: IDs.appA)?.familyId == "1")
        #expect(try cache.apply([.save(try metadata(family: ""))]).replaced == 1)
        #expect(try cache.appMetadata(clientId: IDs.appA)?.familyId == "")
        var odd = try metadata(family: "")
        odd.generic = Data("other".utf8)
        #expect(try cache.apply([.save(odd)]).replaced == 1)
        #expect(try store.items(matching: ItemQuery(type: .code(ItemTypeCode.appMetadata))).first?.generic == Data("other".utf8))
    }
}
