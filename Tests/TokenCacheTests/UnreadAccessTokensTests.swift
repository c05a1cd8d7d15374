import CacheStore
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import Synchronization
import TestSupport
import TokenCacheSchema
import Testing

@testable import TokenCache

/// A SQLite store opens without its access tokens (`UnreadAccessTokens`): a home's are read on the
/// first call that needs them. Every answer must be the one an engine that read everything gives,
/// whatever the store holds and whoever writes to it meanwhile.
@Suite struct UnreadAccessTokensTests {
    static let environment = "login.microsoftonline.com"
    static let clients = [IDs.appA, IDs.appB]

    /// Homes whose attributes start one another (`a.b-…` is also `a.b` followed by `-`), and plain ones.
    static let homes: [(uid: String, utid: String)] = [("a", "b"), ("a.b-c", "d"), ("uid0", "tid0"), ("uid1", "tid1"), ("uid2", "tid0")]
    static func home(_ user: (uid: String, utid: String)) -> String { "\(user.uid).\(user.utid)" }

    /// The stores under test: the same items in a SQLite file (read without its access tokens) and
    /// in memory (read whole).
    struct Pair {
        let directory: TemporaryDirectory
        let sqlite: SQLiteStore
        let memory: MemoryStore
        let clock = TestClock()

        init() throws {
            directory = try TemporaryDirectory()
            let groups = try AccessGroups([IDs.group])
            sqlite = try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: groups)
            memory = MemoryStore(accessGroups: groups)
        }

        func put(_ items: [StoreItem]) throws {
            try sqlite.save(items)
            try memory.save(items)
        }

        var configuration: TokenCache.Configuration {
            let clock = self.clock
            return TokenCache.Configuration(clock: { clock.now })
        }

        func engines() throws -> (split: TokenCache, whole: TokenCache) {
            (try TokenCache(store: sqlite, configuration: configuration), try TokenCache(store: memory, configuration: configuration))
        }

        /// An engine over the SQLite file through a store of its own, as another process has.
        func otherEngine() throws -> TokenCache {
            try TokenCache(store: try SQLiteStore(path: sqlite.path, accessGroups: sqlite.accessGroups), configuration: configuration)
        }
    }

    /// Items written by an engine for every home and client, then odd ones another writer could
    /// leave: access tokens under an attribute in capitals, with white space, of an app (no home),
    /// and of one account stored under another's attribute.
    static func populate(_ pair: Pair) throws {
        let writer = try CacheFixture(store: MemoryStore(accessGroups: try AccessGroups([IDs.group])), clock: pair.clock)
        for user in homes {
            for client in clients {
                try writer.save(
                    TokenResponses.aad(uid: user.uid, tid: user.utid, username: "\(user.uid)@contoso.com", scope: "User.Read", accessToken: "read-\(user.uid)-\(client.prefix(4))"),
                    clientId: client)
                try writer.save(
                    TokenResponses.aad(uid: user.uid, tid: user.utid, username: "\(user.uid)@contoso.com", scope: "Mail.Read", accessToken: "mail-\(user.uid)-\(client.prefix(4))"),
                    authority: "https://login.windows.net/common", clientId: client)
            }
        }
        var items = try writer.allItems()
        let expiry = writer.now + 3600
        func accessToken(home: String?, environment: String, scope: String, secret: String) throws -> StoreItem {
            try Credential(
                credentialType: .accessToken, secret: secret, clientId: IDs.appA, homeAccountId: home, environment: environment,
                realm: "tid0", target: scope, cachedAt: writer.now, expiresOn: expiry, extendedExpiresOn: expiry
            ).storeItem(accessGroup: IDs.group)
        }
        var capitals = try accessToken(home: "uid0.tid0", environment: environment, scope: "Files.Read", secret: "capitals")
        capitals.account = capitals.account.uppercased()
        var spaced = try accessToken(home: "uid1.tid1", environment: environment, scope: "Files.Read", secret: "spaced")
        spaced.account = " " + spaced.account
        let app = try accessToken(home: nil, environment: environment, scope: "https://graph.microsoft.com/.default", secret: "app")
        var moved = try accessToken(home: "uid2.tid0", environment: environment, scope: "Sites.Read", secret: "moved")
        moved.account = "uid0.tid0-\(environment)"
        // Not plain and of a cloud the engine does not know: decoded with the store, the only one of
        // its home the index holds then.
        var foreign = try accessToken(home: "uid2.tid0", environment: "login.contoso.test", scope: "User.Read", secret: "foreign")
        foreign.account = foreign.account.uppercased()
        items += [capitals, spaced, app, moved, foreign]
        try pair.put(items)
    }

    /// Every access-token answer the engine gives for the homes, clients and environments, and the
    /// searches a library makes, as comparable text.
    static func answers(_ cache: TokenCache) throws -> [String] {
        var result: [String] = []
        for user in homes + [("uid9", "tid9")] {
            let home = home(user)
            for client in clients {
                for environment in [environment, "login.windows.net", "login.microsoft.com"] {
                    for scopes in [["User.Read"], ["Mail.Read"], ["Files.Read"], ["Sites.Read"]] {
                        for realm in [user.utid, "tid0", nil] {
                            let found = try cache.accessToken(AccessTokenQuery(
                                homeAccountId: home, environment: environment, realm: realm, clientId: client, scopes: scopes))
                            result.append("\(home) \(client) \(environment) \(scopes) \(realm ?? "-"): \(found?.credential.secret ?? "none")")
                        }
                    }
                }
                let searched = try cache.search(CacheSearch(
                    kind: .accessToken, query: ["home_account_id": .string(home), "client_id": .string(client)], target: []))
                result.append("search \(home) \(client): \(searched.compactMap { $0["secret"]?.stringValue }.sorted())")
            }
        }
        let apps = try cache.search(CacheSearch(kind: .accessToken, query: ["home_account_id": .null, "client_id": .string(IDs.appA)], target: []))
        result.append("app tokens: \(apps.compactMap { $0["secret"]?.stringValue })")
        let all = try cache.search(CacheSearch(kind: .accessToken, query: [:], target: []))
        result.append("every access token: \(all.compactMap { $0["secret"]?.stringValue }.sorted())")
        result.append("unreadable: \(try cache.unreadableItems().map(\.description))")
        return result
    }

    static func deferredHomes(_ cache: TokenCache) -> Set<String> {
        cache.state.withLock { Set($0.index.deferred.keys) }
    }

    static func accessTokenHomes(_ cache: TokenCache) -> Set<String> {
        cache.state.withLock { state in
            Set(state.index.entries.compactMap { key, stored -> String? in
                guard case .credential(let credential) = stored.entry, credential.isAccessToken else { return nil }
                return credential.homeAccountId
            })
        }
    }

    @Test func openingReadsNoPlainAccessTokenAndAHomesOnItsFirstUse() throws {
        let pair = try Pair()
        defer { pair.directory.cleanUp() }
        try Self.populate(pair)
        let cache = try pair.engines().split
        _ = try cache.accounts()
        #expect(cache.state.withLock { $0.index.unread != nil }, "the SQLite store is read without its access tokens")
        // Only those under an attribute that is not plain were read with the store (and not decoded).
        #expect(Self.accessTokenHomes(cache) == ["uid2.tid0"])
        #expect(Self.deferredHomes(cache) == ["uid0.tid0", "uid1.tid1"])

        let found = try cache.accessToken(AccessTokenQuery(
            homeAccountId: "uid2.tid0", environment: "login.windows.net", realm: "tid0", clientId: IDs.appB, scopes: ["Mail.Read"]))
        #expect(found?.credential.secret == "mail-uid2-d359")
        #expect(Self.accessTokenHomes(cache) == ["uid2.tid0"])

        // `a.b-c.d`'s attribute starts with `a.b-` too: `a.b`'s read meets its tokens but files
        // only `a.b`'s; `a.b-c.d`'s come with its own read.
        _ = try cache.accessToken(AccessTokenQuery(homeAccountId: "a.b", environment: Self.environment, realm: "b", clientId: IDs.appA, scopes: ["User.Read"]))
        #expect(Self.accessTokenHomes(cache) == ["uid2.tid0", "a.b"])
        #expect(try cache.accessToken(AccessTokenQuery(
            homeAccountId: "a.b-c.d", environment: Self.environment, realm: "d", clientId: IDs.appA, scopes: ["User.Read"]))?.credential.secret == "read-a.b-c-b6c6")
        #expect(Self.accessTokenHomes(cache) == ["uid2.tid0", "a.b", "a.b-c.d"])
    }

    @Test func everyAnswerIsAWholeReadsAnswer() throws {
        let pair = try Pair()
        defer { pair.directory.cleanUp() }
        try Self.populate(pair)
        let (split, whole) = try pair.engines()
        let expected = try Self.answers(whole)
        #expect(expected.contains { $0.hasPrefix("every access token:") && $0.contains("capitals") && $0.contains("app") })
        #expect(try Self.answers(split) == expected)
        // Each home read once, in any order: the same again from a new engine, asked in reverse.
        let reversed = try pair.engines().split
        for user in Self.homes.reversed() {
            _ = try reversed.accessToken(AccessTokenQuery(
                homeAccountId: Self.home(user), environment: Self.environment, realm: nil, clientId: IDs.appB, scopes: ["User.Read"]))
        }
        #expect(try Self.answers(reversed) == expected)
    }

    @Test func savesAndRemovalsMeetTheTokensNotReadYet() throws {
        let pair = try Pair()
        defer { pair.directory.cleanUp() }
        try Self.populate(pair)
        let (split, whole) = try pair.engines()
        _ = try split.accounts()
        _ = try whole.accounts()
        // A save whose scopes intersect a stored token's replaces it, though nothing read it.
        for cache in [split, whole] {
            try cache.save(
                TokenResponses.aad(uid: "uid1", tid: "tid1", username: "uid1@contoso.com", scope: "User.Read Files.Read", accessToken: "new-uid1"),
                for: try CacheFixture.request(clientId: IDs.appA))
            _ = try cache.wipeAccount(homeAccountId: "a.b")
            _ = try cache.removeAccount(homeAccountId: "uid2.tid0", clientId: IDs.appB)
        }
        #expect(try pair.sqlite.items(matching: ItemQuery(type: .code(2001))).map(\.identity).sorted { "\($0)" < "\($1)" }
            == pair.memory.items(matching: ItemQuery(type: .code(2001))).map(\.identity).sorted { "\($0)" < "\($1)" })
        #expect(try Self.answers(split) == Self.answers(whole))
        #expect(try Self.answers(try pair.engines().split) == Self.answers(whole))
    }

    @Test func anotherWritersChangesBeforeTheFirstUseAreSeen() throws {
        let pair = try Pair()
        defer { pair.directory.cleanUp() }
        try Self.populate(pair)
        let opened = try pair.engines().split
        _ = try opened.accounts()
        // Another engine (as another process would) replaces one home's token and wipes another's.
        let other = try pair.otherEngine()
        try other.save(
            TokenResponses.aad(uid: "uid0", tid: "tid0", username: "uid0@contoso.com", scope: "User.Read", accessToken: "other-uid0"),
            for: try CacheFixture.request(clientId: IDs.appA))
        _ = try other.wipeAccount(homeAccountId: "uid1.tid1")
        let query = { (home: String, realm: String) in
            AccessTokenQuery(homeAccountId: home, environment: Self.environment, realm: realm, clientId: IDs.appA, scopes: ["User.Read"])
        }
        #expect(try opened.accessToken(query("uid0.tid0", "tid0"))?.credential.secret == "other-uid0")
        #expect(try opened.accessToken(query("uid1.tid1", "tid1")) == nil)
        #expect(try opened.accessToken(query("uid2.tid0", "tid0"))?.credential.secret == "read-uid2-b6c6")
        #expect(try Self.answers(opened) == Self.answers(try pair.engines().split))
    }

    /// A store that runs `hook` after each read of left-out items, outside its lock; when `moving`,
    /// its stamp changes at every call, as if other writers never stopped.
    final class HookedStore: SplitReadingStore, @unchecked Sendable {
        let base: SQLiteStore
        let hook = Mutex<(@Sendable () throws -> Void)?>(nil)
        let moving: Bool
        private let calls = Atomic<UInt64>(0)
        init(_ base: SQLiteStore, moving: Bool = false) {
            self.base = base
            self.moving = moving
        }

        var accessGroups: AccessGroups { base.accessGroups }
        func items(matching query: ItemQuery) throws -> [StoreItem] { try base.items(matching: query) }
        func apply(_ batch: [StoreOperation]) throws -> BatchResult { try base.apply(batch) }
        func applyPlanned(_ plan: (ChangeStamp, () throws -> [StoreItem]) throws -> [StoreOperation]) throws -> BatchResult {
            try base.applyPlanned(plan)
        }
        func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws { try base.readAllItems(chunkSize: chunkSize, into: receive) }
        func changeStamp() throws -> ChangeStamp {
            let stamp = try base.changeStamp()
            guard moving else { return stamp }
            return ChangeStamp(stamp.first, stamp.second ^ (calls.add(1, ordering: .relaxed).newValue << 32))
        }
        func readPartition(accessGroup: String, account: String) throws -> PartitionRead {
            try base.readPartition(accessGroup: accessGroup, account: account)
        }
        func readPartitions(_ partitions: [PartitionID]) throws -> [PartitionRead] { try base.readPartitions(partitions) }
        func partitionChanges(since revision: ChangeStamp?) throws -> PartitionChanges? { try base.partitionChanges(since: revision) }
        func partitions(withLookupKey key: String) throws -> [PartitionID]? { try base.partitions(withLookupKey: key) }
        var keepsLookupKeys: Bool { base.keepsLookupKeys }
        func readAllItems(chunkSize: Int, leavingOut leftOut: LeftOutItems, into receive: ([StoreItem]) -> Void) throws {
            try base.readAllItems(chunkSize: chunkSize, leavingOut: leftOut, into: receive)
        }
        func leftOutItems(_ leftOut: LeftOutItems, accountPrefix: String?) throws -> [StoreItem] {
            let items = try base.leftOutItems(leftOut, accountPrefix: accountPrefix)
            let hook = self.hook.withLock { hook in
                defer { hook = nil }
                return hook
            }
            try hook?()
            return items
        }
    }

    /// A home's tokens read while another call brought the index past that read (another writer
    /// deleted one of them meanwhile) are not filed: the call reads them again.
    @Test func aReadOvertakenByACatchUpIsReadAgain() throws {
        let pair = try Pair()
        defer { pair.directory.cleanUp() }
        try Self.populate(pair)
        let store = HookedStore(pair.sqlite)
        let cache = try TokenCache(store: store, configuration: pair.configuration)
        let other = try pair.otherEngine()
        _ = try cache.accounts()
        let query = AccessTokenQuery(homeAccountId: "uid2.tid0", environment: Self.environment, realm: "tid0", clientId: IDs.appA, scopes: ["User.Read"])
        store.hook.withLock { hook in
            hook = {
                // Between the read of uid2's tokens and their filing: another writer wipes uid2, and
                // another call of this engine catches up with it.
                _ = try other.wipeAccount(homeAccountId: "uid2.tid0")
                _ = try cache.accounts()
            }
        }
        #expect(try cache.accessToken(query) == nil, "the token the other writer deleted is not served")
        #expect(store.hook.withLock { $0 == nil }, "the hook ran")
        #expect(try Self.answers(cache) == Self.answers(try pair.engines().split))
    }

    /// A store whose stamp never stands still: every call is answered on a copy of the index, the
    /// access tokens it lacks read into the copy, and saves are planned on a whole read in the end.
    @Test func aStoreThatNeverStandsStillStillAnswersAlike() throws {
        let pair = try Pair()
        defer { pair.directory.cleanUp() }
        try Self.populate(pair)
        let moving = try TokenCache(store: HookedStore(pair.sqlite, moving: true), configuration: pair.configuration)
        #expect(try moving.accessToken(AccessTokenQuery(
            homeAccountId: "uid2.tid0", environment: Self.environment, realm: "tid0", clientId: IDs.appB, scopes: ["User.Read"]))?.credential.secret == "read-uid2-d359")
        #expect(moving.state.withLock { $0.index.unread != nil }, "the engine's index was read without its access tokens")
        try moving.save(
            TokenResponses.aad(uid: "uid1", tid: "tid1", username: "uid1@contoso.com", scope: "User.Read", accessToken: "moving-uid1"),
            for: try CacheFixture.request(clientId: IDs.appA))
        #expect(try moving.accessToken(AccessTokenQuery(
            homeAccountId: "uid1.tid1", environment: Self.environment, realm: "tid1", clientId: IDs.appA, scopes: ["User.Read"]))?.credential.secret == "moving-uid1")
        #expect(try Self.answers(moving) == Self.answers(try pair.engines().split))
    }

    /// Threads saving and looking up at once on an engine just opened: no call waits on another
    /// forever (a plan holds the store's lock and takes the engine's; the reads of access tokens
    /// take neither), and each thread finds its last save.
    @Test func savesAndLookupsAtOnceOnAFreshOpen() throws {
        let pair = try Pair()
        defer { pair.directory.cleanUp() }
        try Self.populate(pair)
        let cache = try pair.otherEngine()
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            let user = Self.homes[thread + 1]
            let home = Self.home(user)
            do {
                for round in 0..<25 {
                    try cache.save(
                        TokenResponses.aad(uid: user.uid, tid: user.utid, username: "\(user.uid)@contoso.com", scope: "User.Read", accessToken: "t\(thread)-r\(round)"),
                        for: try CacheFixture.request(clientId: IDs.appA))
                    let found = try cache.accessToken(AccessTokenQuery(
                        homeAccountId: home, environment: Self.environment, realm: user.utid, clientId: IDs.appA, scopes: ["User.Read"]))
                    if found?.credential.secret != "t\(thread)-r\(round)" {
                        failures.withLock { $0.append("\(home) round \(round): \(found?.credential.secret ?? "none")") }
                    }
                    // Another home's tokens, perhaps not read yet.
                    let neighbour = Self.homes[(thread + round) % Self.homes.count]
                    _ = try cache.accessToken(AccessTokenQuery(
                        homeAccountId: Self.home(neighbour), environment: "login.windows.net", realm: nil, clientId: IDs.appB, scopes: ["Mail.Read"]))
                }
            } catch {
                failures.withLock { $0.append("\(home): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try Self.answers(cache) == Self.answers(try pair.engines().split))
    }
}
