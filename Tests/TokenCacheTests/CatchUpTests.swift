import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import TokenCache
import TokenCacheSchema
import Synchronization
import Testing

/// After another writer's commit, the engine re-reads only the partitions the store says changed
/// (`partitionChanges(since:)`), and answers exactly as an engine that read the whole store.
@Suite struct CatchUpTests {
    static let group = "com.microsoft.adalcache"
    static let authority = try! Authority("https://login.microsoftonline.com/common")

    static func response(user: Int, step: Int, scope: String = "User.Read", foci: String? = "1") -> TokenResponse {
        var response = TokenResponses.aad(
            uid: "uid\(user)", tid: "tid\(user % 2)", username: "User\(user)@Contoso.com", scope: scope,
            accessToken: "at-\(step)", refreshToken: "rt-\(step)", foci: foci)
        response.expiresIn = 3600
        return response
    }

    static func accessToken(_ cache: TokenCache, user: Int, client: String = "client-a") throws -> String? {
        try cache.accessToken(AccessTokenQuery(
            homeAccountId: "uid\(user).tid\(user % 2)", environment: "login.microsoftonline.com", realm: "tid\(user % 2)",
            clientId: client, scopes: ["User.Read"]))?.credential.secret
    }

    static let request = TokenRequest(authority: authority, clientId: "client-a", scopes: ["User.Read"])

    /// A store and two engines over it, after the first saved `users` users (step = user).
    static func twoEngines(afterSaving users: Int) throws -> (store: PartitionedMemoryStore, first: TokenCache, second: TokenCache) {
        let store = try PartitionedMemoryStore(groups: [group])
        let first = try TokenCache(store: store)
        let second = try TokenCache(store: store)
        for user in 0..<users { try first.save(response(user: user, step: user), for: Self.request) }
        return (store, first, second)
    }

    @Test func anotherEnginesSaveIsCaughtUpByPartition() throws {
        let (store, first, second) = try Self.twoEngines(afterSaving: 20)
        #expect(try Self.accessToken(first, user: 3) == "at-3")
        // The first catch-up re-reads the partitions of the engine's own saves too (their revision
        // is not known to it); from then on, only what others changed.
        try second.save(Self.response(user: 5, step: 50), for: Self.request)
        #expect(try Self.accessToken(first, user: 5) == "at-50")
        let fullReads = store.fullReads
        let partitionReads = store.partitionReads

        try second.save(Self.response(user: 3, step: 100), for: Self.request)
        #expect(try Self.accessToken(first, user: 3) == "at-100")
        #expect(store.fullReads == fullReads)
        // The account's partition, the app metadata's and the account metadata's.
        #expect(store.partitionReads - partitionReads <= 3)
        #expect(try first.accounts().count == 20)
    }

    /// Two processes saving at once: the second takes the write lock after the first committed, so
    /// its plan meets a newer store than its index. It catches up by partition and plans again,
    /// instead of reading the whole store under the lock, and both saves are kept.
    @Test func aSaveAfterAnotherWritersCommitCatchesUpByPartition() throws {
        let (store, first, second) = try Self.twoEngines(afterSaving: 20)
        try second.save(Self.response(user: 20, step: 20), for: Self.request)
        #expect(try Self.accessToken(first, user: 20) == "at-20")
        let fullReads = store.fullReads
        let once = Mutex(true)
        store.runBeforePlanning {
            guard once.withLock({ let first = $0; $0 = false; return first }) else { return }
            try second.save(Self.response(user: 7, step: 70), for: Self.request)
        }
        try first.save(Self.response(user: 3, step: 30), for: Self.request)
        store.runBeforePlanning(nil)
        #expect(store.fullReads == fullReads)
        #expect(try Self.accessToken(first, user: 3) == "at-30")
        #expect(try Self.accessToken(first, user: 7) == "at-70")
        #expect(try Self.accessToken(second, user: 3) == "at-30")
        #expect(try first.accounts().count == 21)
    }

    /// A store another writer commits to before every plan: after a few attempts the engine plans
    /// on a read of the whole store under the write lock, as before, so the save still lands.
    @Test func aStoreThatKeepsMovingIsPlannedOnAWholeRead() throws {
        let (store, first, second) = try Self.twoEngines(afterSaving: 10)
        _ = try second.accounts()  // its first read of the store, before counting
        let fullReads = store.fullReads
        let commits = Mutex(0)
        let inside = Mutex(false)
        store.runBeforePlanning {
            // The other writer's save plans through applyPlanned too: it does not wait for itself.
            guard !inside.withLock({ let nested = $0; $0 = true; return nested }) else { return }
            defer { inside.withLock { $0 = false } }
            let step = commits.withLock { $0 += 1; return $0 }
            try second.save(Self.response(user: 8, step: 100 + step), for: Self.request)
        }
        try first.save(Self.response(user: 2, step: 20), for: Self.request)
        store.runBeforePlanning(nil)
        // One commit of the other writer before each of the five attempts; the last one read all.
        #expect(commits.withLock { $0 } == 5)
        #expect(store.fullReads == fullReads + 1)
        #expect(try Self.accessToken(first, user: 2) == "at-20")
        #expect(try Self.accessToken(first, user: 8) == "at-105")
    }

    /// Past a share of the index, catching up one partition at a time would cost more than one
    /// whole read: the engine reads the whole store instead, and answers the same.
    @Test func manyChangedPartitionsAreReadWhole() throws {
        let (store, first, second) = try Self.twoEngines(afterSaving: 60)
        _ = try second.accounts()
        try second.save(Self.response(user: 1, step: 1_000), for: Self.request)
        #expect(try Self.accessToken(first, user: 1) == "at-1000")
        let fullReads = store.fullReads
        let partitionReads = store.partitionReads

        for user in 0..<60 {
            try second.save(Self.response(user: user, step: 2_000 + user), for: Self.request)
        }
        #expect(try Self.accessToken(first, user: 42) == "at-2042")
        #expect(store.fullReads == fullReads + 1)
        #expect(store.partitionReads == partitionReads)
        #expect(try first.accounts().count == 60)
    }

    @Test func deletionsByAnotherWriterDisappear() throws {
        let (store, first, second) = try Self.twoEngines(afterSaving: 3)
        #expect(try first.accounts().count == 3)
        _ = try second.accounts()
        try second.removeAccount(homeAccountId: "uid1.tid1", clientId: "client-a")
        let fullReads = store.fullReads
        #expect(try Self.accessToken(first, user: 1) == nil)
        #expect(try first.accounts(clientId: "client-a").map(\.homeAccountId) == ["uid0.tid0", "uid2.tid0"])

        // A raw delete of a whole partition, as another library would.
        _ = try store.apply([.delete(ItemQuery(accessGroup: Self.group, account: "uid2.tid0-login.windows.net"))])
        #expect(try Self.accessToken(first, user: 2) == nil)
        #expect(try first.account(identifier: "uid2.tid0") == nil)
        #expect(store.fullReads == fullReads)
    }

    @Test func aStoreThatCannotTellIsReadWhole() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group], answersChanges: false)
        let first = try TokenCache(store: store)
        let second = try TokenCache(store: store)
        #expect(try Self.accessToken(first, user: 0) == nil)
        try second.save(Self.response(user: 0, step: 7), for: Self.request)
        let fullReads = store.fullReads
        #expect(try Self.accessToken(first, user: 0) == "at-7")
        #expect(store.fullReads == fullReads + 1)
        #expect(store.partitionReads == 0)
    }

    @Test func tombstonesWrittenByAnotherWriterAreDeletedOnCatchUp() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let first = try TokenCache(store: store)
        try first.save(Self.response(user: 0, step: 1), for: Self.request)
        #expect(try Self.accessToken(first, user: 0) == "at-1")
        let tombstone = Credential(
            credentialType: .refreshToken, secret: Credential.tombstoneSecret, clientId: "client-z",
            homeAccountId: "uid0.tid0", environment: "login.windows.net")
        let item = try tombstone.storeItem(accessGroup: Self.group)
        try store.save(item)
        #expect(try Self.accessToken(first, user: 0) == "at-1")
        #expect(try store.items(matching: item.identity.query).isEmpty)
    }

    /// Random saves, removals and raw writes through two engines and the store itself; after every
    /// few steps both engines, caught up by partition, answer like an engine that read everything.
    @Test(arguments: [(1, "memory"), (2, "memory"), (3, "memory"), (4, "memory"), (5, "sqlite"), (6, "sqlite")])
    func caughtUpIndexesAnswerLikeAFreshRead(seed: UInt64, backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // SQLite: each engine and the raw writer open the file on their own, as processes do (the
        // store answers partitionChanges once it keeps partition revisions; until then it is read whole).
        let memory = try PartitionedMemoryStore(groups: [Self.group])
        func open() throws -> any ItemStore {
            backend == "memory" ? memory : try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups([Self.group]))
        }
        let store = try open()
        let engines = [try TokenCache(store: try open()), try TokenCache(store: try open())]
        let clients = ["client-a", "client-b", "client-c"]
        var generator = SplitMix64(seed: seed)
        for step in 0..<160 {
            let user = Int(generator.next() % 6)
            let client = clients[Int(generator.next() % 3)]
            let engine = engines[Int(generator.next() % 2)]
            switch generator.next() % 8 {
            case 0:
                try engine.removeAccount(homeAccountId: "uid\(user).tid\(user % 2)", clientId: client)
            case 1 where step % 5 == 0:
                try engine.wipeAccount(homeAccountId: "uid\(user).tid\(user % 2)")
            case 2:
                // Another library deletes one partition outright, or one kind of item everywhere.
                if generator.next() % 2 == 0 {
                    try store.apply([.delete(ItemQuery(accessGroup: Self.group, account: "uid\(user).tid\(user % 2)-login.windows.net"))])
                } else {
                    try store.apply([.delete(ItemQuery(type: .code(CredentialType.accessToken.typeCode)))])
                }
            default:
                let scope = ["User.Read", "User.Read Mail.Read", "Files.Read", "Mail.Read User.Read openid"][Int(generator.next() % 4)]
                try engine.save(
                    Self.response(user: user, step: step, scope: scope, foci: client == "client-c" ? nil : "1"),
                    for: TokenRequest(authority: Self.authority, clientId: client, scopes: ["User.Read"]))
            }
            if step % 6 == 5 {
                let expected = try Self.answers(try TokenCache(store: store), clients: clients)
                for (number, engine) in engines.enumerated() {
                    let actual = try Self.answers(engine, clients: clients)
                    let differences = zip(actual, expected).enumerated().filter { $1.0 != $1.1 }.map { "#\($0): \($1.0) instead of \($1.1)" }
                    #expect(actual == expected, "engine \(number), seed \(seed), after step \(step): \(differences.prefix(4))")
                }
            }
        }
        if backend == "memory" { #expect(memory.partitionReads > 0) }
    }

    /// Every answer of the engine, listings sorted: an account the engine wrote itself and another
    /// writer deleted and wrote again between two catch-ups may keep its old place in listings
    /// (its creation date, which would tell, is not known to the engine; see
    /// `CacheIndex.replacePartition`).
    static func answers(_ cache: TokenCache, clients: [String]) throws -> [String] {
        let snapshot = try IndexConsistencyTests.snapshot(cache, users: 0..<6, clients: clients)
        var answers = snapshot.accounts.sorted() + snapshot.accessTokens.map { $0 ?? "-" } + snapshot.refreshTokens.map { $0 ?? "-" }
            + snapshot.familyTokens.map { $0 ?? "-" }
        for user in 0..<6 {
            answers.append(try cache.account(username: "user\(user)@contoso.com")?.homeAccountId ?? "-")
            for client in clients {
                answers.append(try cache.accounts(clientId: client).map(\.homeAccountId).sorted().joined(separator: ","))
                answers.append(try cache.idToken(homeAccountId: "uid\(user).tid\(user % 2)", clientId: client, environment: "login.microsoftonline.com")?.credential.secret ?? "-")
                answers.append(try cache.appMetadata(clientId: client).map { "\($0.clientId ?? "-") \($0.familyId ?? "-")" } ?? "-")
            }
        }
        return answers
    }
}
