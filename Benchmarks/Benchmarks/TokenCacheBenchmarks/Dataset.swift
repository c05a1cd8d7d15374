import CacheStore
import CacheStoreMemory
import CacheStoreSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#endif
import TokenCache
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

/// The cache the benchmarks run against, and the queries they draw from it.
///
/// With `TOKENCACHE_BENCH_CACHE` naming an MSAL JSON cache file, that file is imported and the
/// queries come from its entries. Otherwise a cache is generated deterministically: 1,000 users in 3
/// tenants; app A (family "1") for every user with two access tokens of disjoint scopes, plus a
/// guest-tenant token for 70% of them; app B (family "1") for every second user; app C (no family)
/// for every third — ~3,500 access tokens, ~2,800 refresh tokens, ~2,500 ID tokens, 1,700 account
/// records (one per tenant profile) and app metadata. With `TOKENCACHE_BENCH_EXPORT` naming a path,
/// the cache is also written there as MSAL JSON (for `msal_python_compare.py`).
struct Dataset: Sendable {
    static let appA = "7b0c8f2a-1d4e-4a51-9c1b-0f5e2d3a4b6c"
    static let appB = "2c9d1e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
    static let appC = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9"
    static let tenants = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"]
    static let group = "com.microsoft.adalcache"

    struct Account: Sendable {
        let homeAccountId: String
        let username: String
    }

    let directory: URL
    let path: String
    let itemCount: Int
    /// Accounts to look up, by identifier and by username.
    let accounts: [Account]
    /// The client whose accounts "all accounts" lists.
    let listingClient: String
    /// Access-token queries with a token's exact scopes, in its own environment.
    let exactQueries: [AccessTokenQuery]
    /// The same tokens asked with one scope in another case, through another alias of the cloud.
    let subsetQueries: [AccessTokenQuery]
    /// (home account id, client id) pairs whose family refresh token exists.
    let familyQueries: [(homeAccountId: String, clientId: String)]
    /// Token responses to save, with their requests.
    let saves: [(TokenResponse, TokenRequest)]

    /// Builds the dataset, or reuses the one an earlier benchmark process of the same run built:
    /// the harness starts a process per benchmark, and generating takes seconds.
    static func make() throws -> Dataset {
        let environment = ProcessInfo.processInfo.environment
        let source = environment["TOKENCACHE_BENCH_CACHE"].flatMap { $0.isEmpty ? nil : $0 }
        // One cached dataset per source and per hour (its tokens live a day).
        let hour = Int(Date().timeIntervalSince1970 / 3600)
        // FNV-1a of the source: stable across processes, unlike `hashValue`.
        let tag = String((source ?? "generated").utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }, radix: 16)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-bench-\(getuid())-\(hour)-\(tag)")
        let path = directory.appendingPathComponent("cache.sqlite").path
        let ready = directory.appendingPathComponent("ready").path
        let reuse = FileManager.default.fileExists(atPath: ready)
        if !reuse {
            try? FileManager.default.removeItem(at: directory)
            // Datasets of earlier hours are stale: remove them rather than let them pile up.
            let prefix = "tokencache-bench-\(getuid())-"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? []
            where name.hasPrefix(prefix) && !name.hasPrefix(prefix + "\(hour)-") {
                try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent(name))
            }
        }
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups([group]))
        if !reuse {
            if let source {
                _ = try CacheInterchange(store: store).importFile(atPath: source, format: .msalJSON)
            } else {
                try generate(into: store)
            }
            _ = FileManager.default.createFile(atPath: ready, contents: nil)
        }
        if let export = environment["TOKENCACHE_BENCH_EXPORT"], !export.isEmpty {
            try? FileManager.default.removeItem(atPath: export)
            _ = try CacheInterchange(store: store).export(.msalJSON, toFile: export)
        }
        return try queries(for: store, directory: directory, path: path)
    }

    private static func generate(into store: SQLiteStore) throws {
        let cache = try TokenCache(store: store)
        let authority = try Authority("https://login.microsoftonline.com/organizations")
        for index in 0..<1000 {
            let uid = String(format: "%08x-0000-4000-8000-%012x", index, index)
            let tenant = tenants[index % 3]
            let username = "User\(index)@Contoso\(index % 3).onmicrosoft.com"
            func save(client: String, tenant realm: String, scope: String, family: String?) throws {
                try cache.save(
                    response(uid: uid, homeTenant: tenant, tenant: realm, username: username, scope: scope, family: family),
                    for: TokenRequest(authority: authority, clientId: client, scopes: scope.split(separator: " ").map(String.init)))
            }
            try save(client: appA, tenant: tenant, scope: "User.Read Mail.Read openid profile", family: "1")
            try save(client: appA, tenant: tenant, scope: "Files.ReadWrite Sites.Read.All", family: "1")
            if index % 10 < 7 { try save(client: appA, tenant: tenants[(index + 1) % 3], scope: "User.Read", family: "1") }
            if index % 2 == 0 { try save(client: appB, tenant: tenant, scope: "Calendars.Read", family: "1") }
            if index % 3 == 0 { try save(client: appC, tenant: tenant, scope: "Tasks.ReadWrite", family: nil) }
        }
    }

    /// Queries drawn from what the store holds, so they work on generated and imported caches alike.
    private static func queries(for store: SQLiteStore, directory: URL, path: String) throws -> Dataset {
        let cache = try TokenCache(store: store)
        let clouds = CloudAliases.known
        var accounts: [Account] = []
        for account in try cache.accounts() where !account.homeAccountId.isEmpty {
            if let username = account.username { accounts.append(Account(homeAccountId: account.homeAccountId, username: username)) }
        }
        var exact: [AccessTokenQuery] = []
        var subset: [AccessTokenQuery] = []
        var family: [(String, String)] = []
        var clientCounts: [String: Int] = [:]
        var familyClients = Set<String>()
        var familyHomes: [String] = []
        for item in try store.allItems() {
            guard case .credential(let credential)? = try? UnifiedItem(item), let home = credential.homeAccountId,
                let environment = credential.environment, let client = credential.clientId
            else { continue }
            switch credential.credentialType {
            case .accessToken:
                guard let target = credential.target, (credential.expiresOn ?? 0) > Int64(Date().timeIntervalSince1970) + 600 else { continue }
                let scopes = target.split(separator: " ").map(String.init)
                exact.append(AccessTokenQuery(
                    homeAccountId: home, environment: environment, realm: credential.realm, clientId: client, scopes: scopes))
                let other = clouds.aliases(for: environment).first { $0 != environment } ?? environment
                let scope = scopes.first { !["openid", "profile", "offline_access"].contains($0.lowercased()) } ?? scopes[0]
                subset.append(AccessTokenQuery(
                    homeAccountId: home, environment: other, realm: credential.realm, clientId: client, scopes: [scope.uppercased()]))
            case .refreshToken:
                clientCounts[client, default: 0] += 1
                if credential.familyId == "1" {
                    familyClients.insert(client)
                    familyHomes.append(home)
                }
            default:
                break
            }
        }
        // A family member other than the writer asks for the family token, as app B does for app A's.
        let members = familyClients.sorted()
        for (position, home) in familyHomes.enumerated() where !members.isEmpty {
            family.append((home, members[position % members.count]))
        }
        let listingClient = clientCounts.max { $0.value < $1.value }?.key ?? appA
        var saves: [(TokenResponse, TokenRequest)] = []
        let authority = try Authority("https://login.microsoftonline.com/organizations")
        for index in 0..<64 {
            let uid = String(format: "%08x-0000-4000-8000-%012x", 5000 + index, index)
            let tenant = tenants[index % 3]
            saves.append((
                response(uid: uid, homeTenant: tenant, tenant: tenant, username: "Saver\(index)@Contoso.com",
                         scope: "User.Read Mail.Read openid profile", family: "1"),
                TokenRequest(authority: authority, clientId: appA, scopes: ["User.Read"])))
        }
        return Dataset(
            directory: directory, path: path, itemCount: try store.allItems().count, accounts: accounts,
            listingClient: listingClient, exactQueries: exact, subsetQueries: subset, familyQueries: family, saves: saves)
    }

    static func response(uid: String, homeTenant: String, tenant: String, username: String, scope: String, family: String?) -> TokenResponse {
        func encode(_ object: JSONObject) -> String { Base64URL.encode(JSONValue.object(object).serialized()) }
        let claims: JSONObject = [
            "tid": .string(tenant), "oid": .string(uid), "sub": .string("sub-\(uid)"),
            "preferred_username": .string(username), "name": .string("User \(uid.prefix(8))"),
            "iss": .string("https://login.microsoftonline.com/\(tenant)/v2.0"),
        ]
        return TokenResponse(
            accessToken: "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9." + String(repeating: "a", count: 1200) + "." + uid,
            refreshToken: "0.AAAA" + String(repeating: "r", count: 800) + uid,
            idToken: encode(["typ": "JWT", "alg": "RS256"]) + "." + encode(claims) + ".signature",
            clientInfo: encode(["uid": .string(uid), "utid": .string(homeTenant)]),
            scope: scope, expiresIn: 86_400, extendedExpiresIn: 172_800, familyId: family)
    }

    /// Opens the engine over the dataset's store and warms its index.
    func openWarm() throws -> TokenCache {
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups([Self.group]))
        let cache = try TokenCache(store: store)
        _ = try cache.accounts()
        return cache
    }

    /// The same content in a memory store, for the memory-backend variants.
    func openWarmInMemory() throws -> TokenCache {
        let source = try SQLiteStore(path: path, accessGroups: try AccessGroups([Self.group]))
        let store = MemoryStore(accessGroups: source.accessGroups)
        try store.save(try source.allItems())
        let cache = try TokenCache(store: store)
        _ = try cache.accounts()
        return cache
    }
}
