import CacheStore
import CacheStoreSQLite
import Foundation
import TokenCache
import TokenCacheSchema

/// The cache the benchmarks run against, and the queries they draw from it.
///
/// Generated deterministically: 1,000 users in 3 tenants; app A (family "1") for every user with two
/// access tokens of disjoint scopes, plus a guest-tenant token for 70% of them; app B (family "1")
/// for every second user; app C (no family) for every third. That is ~3,500 access tokens, ~2,800
/// refresh tokens, ~2,500 ID tokens, 1,700 account records (one per tenant profile) and app metadata.
struct Dataset: Sendable {
    static let appA = "7b0c8f2a-1d4e-4a51-9c1b-0f5e2d3a4b6c"
    static let appB = "2c9d1e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
    static let appC = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9"
    static let tenants = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"]
    static let group = "com.microsoft.adalcache"

    struct User: Sendable {
        let homeAccountId: String
        let username: String
        let homeTenant: String
    }

    let directory: URL
    let path: String
    let users: [User]

    /// Builds the store file in a new temporary directory.
    static func make() throws -> Dataset {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-bench-\(UUID().uuidString)")
        let path = directory.appendingPathComponent("cache.sqlite").path
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups([group]))
        let cache = try TokenCache(store: store)
        var users: [User] = []
        let authority = try Authority("https://login.microsoftonline.com/organizations")
        for index in 0..<1000 {
            let uid = String(format: "%08x-0000-4000-8000-%012x", index, index)
            let tenant = tenants[index % 3]
            let username = "User\(index)@Contoso\(index % 3).onmicrosoft.com"
            users.append(User(homeAccountId: "\(uid).\(tenant)", username: username, homeTenant: tenant))
            func save(client: String, tenant: String, scope: String, family: String?) throws {
                try cache.save(
                    response(uid: uid, homeTenant: users[index].homeTenant, tenant: tenant, username: username, scope: scope, family: family),
                    for: TokenRequest(authority: authority, clientId: client, scopes: scope.split(separator: " ").map(String.init)))
            }
            try save(client: appA, tenant: tenant, scope: "User.Read Mail.Read openid profile", family: "1")
            try save(client: appA, tenant: tenant, scope: "Files.ReadWrite Sites.Read.All", family: "1")
            if index % 10 < 7 { try save(client: appA, tenant: tenants[(index + 1) % 3], scope: "User.Read", family: "1") }
            if index % 2 == 0 { try save(client: appB, tenant: tenant, scope: "Calendars.Read", family: "1") }
            if index % 3 == 0 { try save(client: appC, tenant: tenant, scope: "Tasks.ReadWrite", family: nil) }
        }
        return Dataset(directory: directory, path: path, users: users)
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

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
