import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import TokenCache
import TokenCacheSchema
import Testing

/// Partition loading mode answers every lookup as whole-store mode does, reading only the partitions
/// a lookup touches and keeping at most about its limit of items.
@Suite struct PartitionModeTests {
    static let group = CatchUpTests.group

    static func engine(_ store: any ItemStore, limit: Int) throws -> TokenCache {
        try TokenCache(store: store, configuration: .init(loading: .partitions(limit: limit)))
    }

    static func save(_ cache: TokenCache, user: Int, step: Int, client: String = "client-a", scope: String = "User.Read") throws {
        try cache.save(
            CatchUpTests.response(user: user, step: step, scope: scope, foci: client == "client-c" ? nil : "1"),
            for: TokenRequest(authority: CatchUpTests.authority, clientId: client, scopes: ["User.Read"]))
    }

    /// Random saves and removals, through a whole-store engine, a partition engine and the store
    /// itself; after every few steps a partition engine with a small limit, one with a large limit
    /// and a fresh whole-store engine answer alike.
    @Test(arguments: [(1, "memory", true, true), (2, "memory", true, false), (3, "memory", false, true), (4, "memory", false, false), (5, "sqlite", true, true)])
    func partitionModeAnswersLikeWholeStoreMode(seed: UInt64, backend: String, answersChanges: Bool, keepsKeys: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let memory = try PartitionedMemoryStore(groups: [Self.group], answersChanges: answersChanges, keepsLookupKeys: keepsKeys)
        // SQLite: every engine opens the file on its own, as processes do.
        func open() throws -> any ItemStore {
            backend == "memory" ? memory : try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups([Self.group]))
        }
        let store = try open()
        let writers = [try TokenCache(store: try open()), try Self.engine(try open(), limit: 40)]
        let readers = [writers[1], try Self.engine(try open(), limit: 10_000)]
        let clients = ["client-a", "client-b", "client-c"]
        var generator = SplitMix64(seed: seed)
        for step in 0..<120 {
            let user = Int(generator.next() % 6)
            let client = clients[Int(generator.next() % 3)]
            let writer = writers[Int(generator.next() % 2)]
            switch generator.next() % 7 {
            case 0:
                try writer.removeAccount(homeAccountId: "uid\(user).tid\(user % 2)", clientId: client)
            case 1 where step % 5 == 0:
                try writer.wipeAccount(homeAccountId: "uid\(user).tid\(user % 2)")
            case 2:
                try store.apply([.delete(ItemQuery(accessGroup: Self.group, account: "uid\(user).tid\(user % 2)-login.windows.net"))])
            default:
                let scope = ["User.Read", "User.Read Mail.Read", "Files.Read", "Mail.Read User.Read openid"][Int(generator.next() % 4)]
                try Self.save(writer, user: user, step: step, client: client, scope: scope)
            }
            if step % 6 == 5 {
                let expected = try CatchUpTests.answers(try TokenCache(store: store), clients: clients)
                for (number, reader) in readers.enumerated() {
                    let actual = try CatchUpTests.answers(reader, clients: clients)
                    let differences = zip(actual, expected).enumerated().filter { $1.0 != $1.1 }.map { "#\($0): \($1.0) instead of \($1.1)" }
                    #expect(actual == expected, "reader \(number), seed \(seed), after step \(step): \(differences.prefix(4))")
                }
            }
        }
    }

    @Test func aWarmLookupReadsNothingAndAColdOneReadsItsPartitions() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let writer = try TokenCache(store: store)
        for user in 0..<50 { try Self.save(writer, user: user, step: user) }
        let cache = try Self.engine(store, limit: 1_000)
        let fullReads = store.fullReads
        #expect(try CatchUpTests.accessToken(cache, user: 7) == "at-7")
        let reads = store.partitionReads
        #expect(reads > 0)
        for _ in 0..<3 { #expect(try CatchUpTests.accessToken(cache, user: 7) == "at-7") }
        #expect(store.partitionReads == reads)
        #expect(try cache.refreshToken(RefreshTokenQuery(subject: .homeAccountId("uid7.tid1"), clientId: "client-a"))?.credential.secret == "rt-7")
        #expect(store.fullReads == fullReads)
    }

    /// MSAL Python's searches name an account and an environment: in partition mode they read that
    /// account's partitions only, answer as whole-store mode does, and a repeated one reads nothing.
    @Test func anMSALSearchNamingAnAccountReadsOnlyItsPartitions() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let writer = try TokenCache(store: store)
        for user in 0..<50 { try Self.save(writer, user: user, step: user) }
        let cache = try Self.engine(store, limit: 1_000)
        let searches: [CacheSearch] = [
            CacheSearch(kind: .accessToken, query: [
                "home_account_id": .string("uid7.tid1"), "environment": .string("login.windows.net"), "client_id": .string("client-a"),
            ], target: ["User.Read"]),
            CacheSearch(kind: .refreshToken, query: ["home_account_id": .string("uid7.tid1"), "environment": .string("LOGIN.windows.net")]),
            CacheSearch(kind: .account, query: ["home_account_id": .string("uid7.tid1"), "environment": .string("login.windows.net")]),
            CacheSearch(kind: .appMetadata, query: ["environment": .string("login.windows.net"), "client_id": .string("client-a")]),
        ]
        let fullReads = store.fullReads
        for search in searches {
            let found = try cache.search(search)
            let expected = try writer.search(search)
            #expect(!found.isEmpty, "\(search.kind)")
            #expect(found.count == expected.count && found.allSatisfy(expected.contains), "\(search.kind)")
        }
        #expect(store.fullReads == fullReads)
        let reads = store.partitionReads
        for search in searches { _ = try cache.search(search) }
        #expect(store.partitionReads == reads)
        // Without an environment the items of a host no alias table knows could match: every partition is read.
        _ = try cache.search(CacheSearch(kind: .accessToken, query: ["home_account_id": .string("uid7.tid1")]))
        #expect(store.fullReads > fullReads)
    }

    /// A backend over a network answers each batch in one round trip: a cold lookup asks for its
    /// partitions in a few batches, not one read per partition and environment alias.
    @Test func aColdLookupReadsItsPartitionsInBatches() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let writer = try TokenCache(store: store)
        for user in 0..<20 { try Self.save(writer, user: user, step: user) }
        let cache = try Self.engine(store, limit: 1_000)
        var (batches, reads) = (store.batchReads, store.partitionReads)
        #expect(try cache.account(username: "USER5@contoso.com")?.homeAccountId == "uid5.tid1")
        #expect(store.batchReads - batches <= 2, "the username's own partitions, then its accounts' under every alias")
        #expect(store.partitionReads - reads > store.batchReads - batches, "several partitions per batch")
        (batches, reads) = (store.batchReads, store.partitionReads)
        #expect(try CatchUpTests.accessToken(cache, user: 8) == "at-8")
        #expect(store.batchReads - batches == 1)
        #expect(store.partitionReads - reads > 1)
    }

    @Test func partitionsBeyondTheLimitAreEvictedLeastRecentlyUsedFirst() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let writer = try TokenCache(store: store)
        for user in 0..<30 { try Self.save(writer, user: user, step: user) }
        // Each user's partition holds 4 items (access, refresh, family refresh and ID token) and an
        // account record; the shared partitions (app and account metadata) 2.
        let cache = try Self.engine(store, limit: 20)
        for user in 0..<10 { #expect(try CatchUpTests.accessToken(cache, user: user) == "at-\(user)") }
        var reads = store.partitionReads
        // The most recent user is still loaded...
        #expect(try CatchUpTests.accessToken(cache, user: 9) == "at-9")
        #expect(store.partitionReads == reads)
        // ...the first was evicted, and is read again.
        #expect(try CatchUpTests.accessToken(cache, user: 0) == "at-0")
        #expect(store.partitionReads > reads)
        reads = store.partitionReads
        #expect(try CatchUpTests.accessToken(cache, user: 0) == "at-0")
        #expect(store.partitionReads == reads)
    }

    @Test func anotherEnginesWriteIsSeenAfterRevalidation() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let writer = try TokenCache(store: store)
        for user in 0..<10 { try Self.save(writer, user: user, step: user) }
        let cache = try Self.engine(store, limit: 1_000)
        #expect(try CatchUpTests.accessToken(cache, user: 3) == "at-3")
        #expect(try CatchUpTests.accessToken(cache, user: 4) == "at-4")
        try Self.save(writer, user: 3, step: 100)
        let reads = store.partitionReads
        #expect(try CatchUpTests.accessToken(cache, user: 3) == "at-100")
        // The changed partitions that were loaded (the account's, app and account metadata), no more.
        #expect(store.partitionReads - reads <= 3)
        #expect(try CatchUpTests.accessToken(cache, user: 4) == "at-4")
        try writer.wipeAccount(homeAccountId: "uid4.tid0")
        #expect(try CatchUpTests.accessToken(cache, user: 4) == nil)
        #expect(try cache.account(identifier: "uid4.tid0") == nil)
    }

    @Test(arguments: [true, false])
    func usernameLookupsWithAndWithoutACompleteIndex(keepsKeys: Bool) throws {
        let store = try PartitionedMemoryStore(groups: [Self.group], keepsLookupKeys: keepsKeys)
        let writer = try TokenCache(store: store)
        for user in 0..<10 { try Self.save(writer, user: user, step: user) }
        let cache = try Self.engine(store, limit: 1_000)
        let fullReads = store.fullReads
        #expect(try cache.account(username: "USER5@contoso.com")?.homeAccountId == "uid5.tid1")
        #expect(try cache.refreshToken(RefreshTokenQuery(subject: .username("user6@contoso.com"), clientId: "client-a"))?.credential.secret == "rt-6")
        #expect(try cache.account(username: "nobody@contoso.com") == nil)
        if keepsKeys {
            #expect(store.fullReads == fullReads)
            #expect(store.keyQueries > 0)
        } else {
            #expect(store.fullReads > fullReads)
        }
    }

    @Test func savesAndRemovalsInPartitionModeKeepTheStoreConsistent() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let cache = try Self.engine(store, limit: 15)
        for user in 0..<8 { try Self.save(cache, user: user, step: user) }
        try Self.save(cache, user: 2, step: 50, client: "client-b")
        try cache.removeAccount(homeAccountId: "uid3.tid1", clientId: "client-a")
        let fresh = try TokenCache(store: store)
        #expect(try CatchUpTests.answers(cache, clients: ["client-a", "client-b"]) == CatchUpTests.answers(fresh, clients: ["client-a", "client-b"]))
        #expect(try CatchUpTests.accessToken(cache, user: 2, client: "client-b") == "at-50")
        #expect(try CatchUpTests.accessToken(cache, user: 3) == nil)
        #expect(try cache.accounts(clientId: "client-a").count == 7)
        #expect(store.lookupKeys(of: LookupKeyTests.partition(5)) == [LookupKey.username("user5@contoso.com")])
    }

    @Test func aUsernameLookupThatHadToScanBuildsTheIndex() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let other = try PartitionedMemoryStore(groups: [Self.group], keepsLookupKeys: false)
        let writer = try TokenCache(store: other)
        for user in 0..<5 { try Self.save(writer, user: user, step: user) }
        _ = try store.apply(try other.allItems().map(StoreOperation.save))
        let cache = try Self.engine(store, limit: 1_000)
        let fullReads = store.fullReads
        #expect(try cache.account(username: "user1@contoso.com")?.homeAccountId == "uid1.tid1")
        #expect(store.fullReads > fullReads)
        #expect(store.isComplete(Self.group))
        let afterScan = store.fullReads
        #expect(try cache.account(username: "user3@contoso.com")?.homeAccountId == "uid3.tid1")
        #expect(store.fullReads == afterScan)
    }
}
