import CacheStore
import CacheStoreEncryption
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import Synchronization
import TestSupport
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// A listing of every account in partition loading mode reads only the kinds of item it looks at
/// (`TypeSelectingStore`) and answers exactly as whole-store mode does — claims, profiles, order —
/// whatever the store holds: several apps and clouds, a username two accounts share, accounts
/// signed out of an app (their own sign-in items and MSAL ObjC's account metadata), wiped
/// accounts, legacy ADAL entries, a malformed record and, on SQLite, a damaged row.
@Suite struct AccountListingReadTests {
    static let group = IDs.group
    static let clients = [IDs.appA, IDs.appB, IDs.appC, "unknown-client"]
    static let environments: [String?] = [nil, "login.windows.net", "login.microsoftonline.us", "contoso.b2clogin.com"]

    /// (uid, tid, username, authority, client, family) of each sign-in, in order.
    static let signIns: [(String, String, String?, String, String, String?)] = [
        ("u0", "t0", "user0@contoso.com", "https://login.microsoftonline.com/organizations", IDs.appA, "1"),
        ("u0", "t0", "user0@contoso.com", "https://login.microsoftonline.com/organizations", IDs.appB, "1"),
        ("u1", "t0", "User1@Contoso.com", "https://login.windows.net/t0", IDs.appA, "1"),
        ("u1", "t0", "User1@Contoso.com", "https://login.microsoftonline.com/\(IDs.guestTenant)", IDs.appC, nil),
        ("u2", "t2", "user2@contoso.us", "https://login.microsoftonline.us/t2", IDs.appA, "1"),
        // The same username as u0's, in another cloud.
        ("u3", "t3", "USER0@contoso.com", "https://login.chinacloudapi.cn/t3", IDs.appB, "1"),
        ("u4", "t0", nil, "https://login.microsoftonline.com/organizations", IDs.appC, nil),
        ("u5-b2c_1_signin", "t5", "b2c.user@contoso.com", "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin", IDs.appA, nil),
        ("u6", "t0", "user6@contoso.com", "https://login.microsoftonline.com/organizations", IDs.appB, "1"),
    ]

    /// Writes the content through a whole-store engine and the store.
    static func seed(_ store: any ItemStore) throws {
        let cache = try TokenCache(store: store, configuration: .init(clock: { Date(timeIntervalSince1970: 1_700_000_000) }))
        for (step, (uid, tid, username, authority, client, family)) in signIns.enumerated() {
            let parsed = try Authority(authority)
            try cache.save(
                TokenResponses.aad(
                    uid: uid, tid: parsed.tenant == "organizations" ? tid : parsed.tenant, utid: tid, username: username,
                    accessToken: "at-\(step)", refreshToken: "rt-\(step)", foci: family),
                for: TokenRequest(authority: parsed, clientId: client, scopes: ["User.Read"]))
        }
        // Signed out of one app (its own sign-in item), and wiped.
        try cache.removeAccount(homeAccountId: "u1.t0", clientId: IDs.appA)
        try cache.wipeAccount(homeAccountId: "u6.t0", clientId: IDs.appB)
        // MSAL ObjC's account metadata: u0 signed in to app C (with no token of it), u2 signed out of
        // app B (which its family token would sign it in to); neither has an item of its own for it.
        var appC = AccountMetadata(clientId: IDs.appC)
        appC.setSignInState(.signedIn, homeAccountId: "u0.t0")
        var appB = AccountMetadata(clientId: IDs.appB)
        appB.setSignInState(.signedOut, homeAccountId: "u2.t2")
        let adalToken = TokenResponses.idToken(["upn": "adal.only@contoso.com", "tid": "t0", "oid": "u7", "name": "ADAL User"])
        try store.applyKeepingLookupKeys([
            .save(try appC.storeItem(accessGroup: group)),
            .save(try appB.storeItem(accessGroup: group)),
            .save(LegacyTokenCacheItem(
                authority: "https://login.microsoftonline.com/common", clientId: IDs.appA, refreshToken: "adal-rt",
                rawIdToken: adalToken, homeAccountId: "u7.t0").storeItem(accessGroup: group)),
            .save(LegacyTokenCacheItem(
                authority: "https://login.microsoftonline.com/common", clientId: IDs.appC, refreshToken: "adal-rt-nouser",
                homeAccountId: "u0.t0").storeItem(accessGroup: group)),
            // A malformed account record: unreadable, skipped by every read.
            .save(StoreItem(
                accessGroup: group, account: "u8.t0-login.microsoftonline.com", service: "t0", type: 1003,
                data: Data("{\"home_account_id\": 8".utf8))),
        ])
    }

    /// Every listing the engine can be asked for, in one order.
    static func listings(_ cache: TokenCache) throws -> [[CachedAccount]] {
        var listings: [[CachedAccount]] = []
        for client in [nil] + clients.map(Optional.some) {
            for environment in environments {
                for claims in [true, false] {
                    listings.append(try cache.accounts(clientId: client, environment: environment, idTokenClaims: claims))
                }
            }
        }
        return listings
    }

    static func partitionEngine(_ store: any ItemStore) throws -> TokenCache {
        try TokenCache(store: store, configuration: .init(loading: .partitions(limit: 1_000)))
    }

    /// Memory and SQLite select by type; a store that cannot is read whole.
    @Test(arguments: ["memory", "sqlite", "not selecting"])
    func listingsAnswerAsTheWholeStore(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let memory = MemoryStore(accessGroups: try AccessGroups([Self.group]))
        let store: any ItemStore = switch backend {
        case "memory": memory
        case "sqlite": try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups([Self.group]))
        default: WholeReadingStore(base: memory)
        }
        #expect((store is any TypeSelectingStore) == (backend != "not selecting"))
        try Self.seed(store)
        // Before any whole-store engine opens (which files the account metadata in the accounts' partitions).
        let listed = try Self.listings(try Self.partitionEngine(store))
        #expect(try store.allItems().contains { $0.type == ItemTypeCode.accountMetadata })
        let expected = try Self.listings(try TokenCache(store: store))
        #expect(listed.count == expected.count)
        for (number, (actual, whole)) in zip(listed, expected).enumerated() {
            #expect(actual == whole, "listing \(number): \(actual.map(\.homeAccountId)) instead of \(whole.map(\.homeAccountId))")
            // Equal accounts compare every profile's record and claims.
            #expect(actual.map { $0.tenantProfiles.map(\.idTokenClaims) } == whole.map { $0.tenantProfiles.map(\.idTokenClaims) })
        }
        // The content asked about is there: both spellings of the shared username, the ADAL-only
        // account, claims; not the signed-out or wiped accounts where they are hidden.
        let all = expected[0]
        #expect(Set(all.compactMap(\.username)).isSuperset(of: ["user0@contoso.com", "USER0@contoso.com", "adal.only@contoso.com"]))
        #expect(all.contains { $0.source == .legacyADAL })
        #expect(all.contains { $0.tenantProfiles.contains { $0.idTokenClaims?["name"] != nil } })
        // Without claims: the same accounts and profiles, no claims.
        #expect(expected[1].map(\.homeAccountId) == all.map(\.homeAccountId))
        #expect(expected[1].allSatisfy { $0.tenantProfiles.allSatisfy { $0.idTokenClaims == nil } })
        #expect(!all.contains { $0.homeAccountId == "u6.t0" })
        let appA = try Self.partitionEngine(store).accounts(clientId: IDs.appA).map(\.homeAccountId)
        #expect(appA.contains("u0.t0") && !appA.contains("u1.t0"))
        let appC = try Self.partitionEngine(store).accounts(clientId: IDs.appC).map(\.homeAccountId)
        #expect(appC.contains("u0.t0") && appC.contains("u4.t0"))
        let appB = try Self.partitionEngine(store).accounts(clientId: IDs.appB).map(\.homeAccountId)
        #expect(appB.contains("u3.t3") && !appB.contains("u2.t2") && all.contains { $0.homeAccountId == "u2.t2" })
    }

    /// The listing asks a store that selects by type for its kinds only — never access tokens, and
    /// refresh tokens only when it lists one app's accounts — and never reads the store whole.
    @Test func aListingReadsOnlyTheKindsItLooksAt() throws {
        let store = TypeRecordingStore(base: MemoryStore(accessGroups: try AccessGroups([Self.group])))
        try Self.seed(store)
        let cache = try Self.partitionEngine(store)
        let wholeReads = store.wholeReads
        _ = try cache.accounts(idTokenClaims: false)
        let idTokens: [ItemQuery.TypeMatch] = [.code(CredentialType.idToken.typeCode), .code(CredentialType.v1IdToken.typeCode)]
        let withoutClaims = try #require(store.asked.last)
        #expect(withoutClaims.contains(.code(1003)) && !withoutClaims.contains { idTokens.contains($0) })
        _ = try cache.accounts()
        let accessTokens: [ItemQuery.TypeMatch] = [.code(CredentialType.accessToken.typeCode), .code(CredentialType.accessTokenWithAuthScheme.typeCode)]
        let refreshTokens: [ItemQuery.TypeMatch] = [.code(CredentialType.refreshToken.typeCode), .code(CredentialType.familyRefreshToken.typeCode)]
        var asked = try #require(store.asked.last)
        #expect(asked.contains(.code(1003)) && asked.contains(.code(CredentialType.idToken.typeCode)) && asked.contains(.absent))
        #expect(!asked.contains { accessTokens.contains($0) || refreshTokens.contains($0) })
        _ = try cache.accounts(clientId: IDs.appA, environment: "login.windows.net")
        asked = try #require(store.asked.last)
        #expect(refreshTokens.allSatisfy(asked.contains) && asked.contains(.code(ItemTypeCode.accountSignIn)))
        #expect(!asked.contains { accessTokens.contains($0) })
        #expect(store.asked.count == 3)
        #expect(store.wholeReads == wholeReads)
    }

    /// On SQLite a damaged row (its sealed payload altered) is skipped by the listing's read as by a
    /// whole read, and the store's count of damaged items is that of its last whole read.
    @Test func aDamagedRowIsSkippedAndCountedAsByAWholeRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        func open() throws -> SQLiteStore {
            try SQLiteStore(
                path: path, accessGroups: try AccessGroups([Self.group]),
                options: .init(encryption: .init(keySources: [KeyFile(path: directory.path("cache.sqlite.key"))])))
        }
        try Self.seed(try open())
        try rawSQL(path, """
            UPDATE items SET data = substr(data, 1, 30) || CASE WHEN substr(data, 31, 1) = X'00' THEN X'01' ELSE X'00' END || substr(data, 32)
            WHERE account LIKE 'u0.t0-%' AND type = 1003;
            """)
        let partition = try Self.partitionEngine(try open())
        let listed = try Self.listings(partition)
        let whole = try TokenCache(store: try open())
        #expect(listed == (try Self.listings(whole)))
        #expect(!listed[0].contains { $0.homeAccountId == "u0.t0" && $0.source == .unified })
        #expect(try whole.damagedItemCount() == 1)
        #expect(try partition.damagedItemCount() == 1)
        // A selective read after a whole one leaves the whole read's count.
        let store = try open()
        _ = try store.allItems()
        _ = try store.items(ofTypes: [.code(1003)])
        #expect(store.damagedItemCount() == 1)
    }
}

/// A memory store that selects by type, recording the types each read asked for and counting
/// whole reads.
final class TypeRecordingStore: MemoryBackedStore, TypeSelectingStore {
    let base: MemoryStore
    private let log = Mutex<(asked: [[ItemQuery.TypeMatch]], wholeReads: Int)>(([], 0))

    init(base: MemoryStore) { self.base = base }

    var asked: [[ItemQuery.TypeMatch]] { log.withLock { $0.asked } }
    var wholeReads: Int { log.withLock { $0.wholeReads } }

    func items(ofTypes types: [ItemQuery.TypeMatch]) throws -> [StoreItem] {
        log.withLock { $0.asked.append(types) }
        return try base.items(ofTypes: types)
    }

    func items(matching query: ItemQuery) throws -> [StoreItem] {
        if query == ItemQuery() { log.withLock { $0.wholeReads += 1 } }
        return try base.items(matching: query)
    }

    func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws {
        log.withLock { $0.wholeReads += 1 }
        try base.readAllItems(chunkSize: chunkSize, into: receive)
    }
}

/// A memory store that cannot select by type: callers read it whole.
final class WholeReadingStore: MemoryBackedStore {
    let base: MemoryStore
    init(base: MemoryStore) { self.base = base }
}
