import CacheStore
import CacheStoreSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#endif
import TokenCache
import TokenCacheSchema

/// A SQLite store of many accounts, written item by item in large batches (no engine, no token
/// responses: generating a million items through `save` would take minutes), for the partition-mode
/// and catch-up benchmarks. Ten items an account: the account record, an ID token, a refresh token,
/// a family refresh token and three access tokens of app A, an access token, a refresh token and an
/// ID token of app B; plus the two apps' metadata. Secrets are short, so a million items stay a few
/// hundred megabytes. Built once an hour per size and reused by the harness's processes.
struct LargeStore: Sendable {
    let path: String
    let accounts: Int
    /// Access-token queries, one per account, in a shuffled but fixed order.
    let queries: [AccessTokenQuery]
    /// Seconds spent building the store in this process (0 when an earlier process built it).
    let setupSeconds: Double

    static func homeAccountId(_ index: Int) -> String { String(format: "%08x-0000-4000-8000-%012x.%@", index, index, tenant(index)) }
    static func tenant(_ index: Int) -> String { Dataset.tenants[index % 3] }
    static let environment = "login.windows.net"

    static func make(accounts: Int) throws -> LargeStore {
        let hour = Int(Date().timeIntervalSince1970 / 3600)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-bench-\(getuid())-\(hour)-large-\(accounts)")
        let path = directory.appendingPathComponent("cache.sqlite").path
        let ready = directory.appendingPathComponent("ready").path
        var seconds = 0.0
        if !FileManager.default.fileExists(atPath: ready) {
            try? FileManager.default.removeItem(at: directory)
            // The store creates the directory (0700) and its file (0600).
            let start = Date()
            try generate(accounts: accounts, into: try SQLiteStore(path: path, accessGroups: try AccessGroups([Dataset.group])))
            seconds = Date().timeIntervalSince(start)
            _ = FileManager.default.createFile(atPath: ready, contents: nil)
        }
        var generator = SystemRandomNumberGenerator()
        let order = (0..<accounts).shuffled(using: &generator)
        let queries = order.map { index in
            AccessTokenQuery(
                homeAccountId: homeAccountId(index), environment: "login.microsoftonline.com", realm: tenant(index),
                clientId: Dataset.appA, scopes: ["User.Read"])
        }
        return LargeStore(path: path, accounts: accounts, queries: queries, setupSeconds: seconds)
    }

    private static func generate(accounts: Int, into store: SQLiteStore) throws {
        let group = Dataset.group
        let now = Int64(Date().timeIntervalSince1970)
        let expires = now + 86_400 * 2
        var batch: [StoreOperation] = []
        batch.reserveCapacity(21_000)
        func flush() throws {
            try store.apply(batch)
            batch.removeAll(keepingCapacity: true)
        }
        for client in [Dataset.appA, Dataset.appB] {
            batch.append(.save(try AppMetadata(clientId: client, environment: environment, familyId: "1").storeItem(accessGroup: group)))
        }
        for index in 0..<accounts {
            let home = homeAccountId(index)
            let tenant = tenant(index)
            let username = "user\(index)@contoso\(index % 3).onmicrosoft.com"
            let account = Account(
                authorityType: .mssts, homeAccountId: home, environment: environment, realm: tenant,
                localAccountId: String(home.prefix(36)), username: username, name: "User \(index)")
            let accountItem = try account.storeItem(accessGroup: group)
            batch.append(.save(accountItem))
            func credential(_ type: CredentialType, client: String, target: String? = nil, family: String? = nil, realm: String? = nil) throws {
                let secret = "secret-\(type.rawValue)-\(index)-\(client.prefix(4))"
                let value = Credential(
                    credentialType: type, secret: secret, clientId: client, homeAccountId: home, environment: environment,
                    realm: realm, target: target, familyId: family,
                    cachedAt: type == .accessToken ? now : nil, expiresOn: type == .accessToken ? expires : nil,
                    extendedExpiresOn: type == .accessToken ? expires : nil)
                batch.append(.save(try value.storeItem(accessGroup: group)))
            }
            try credential(.idToken, client: Dataset.appA, realm: tenant)
            try credential(.refreshToken, client: Dataset.appA)
            try credential(.refreshToken, client: Dataset.appA, family: "1")
            try credential(.accessToken, client: Dataset.appA, target: "User.Read Mail.Read openid profile", realm: tenant)
            try credential(.accessToken, client: Dataset.appA, target: "Files.ReadWrite Sites.Read.All", realm: tenant)
            try credential(.accessToken, client: Dataset.appA, target: "Calendars.Read", realm: Dataset.tenants[(index + 1) % 3])
            try credential(.accessToken, client: Dataset.appB, target: "Tasks.ReadWrite", realm: tenant)
            try credential(.refreshToken, client: Dataset.appB)
            try credential(.idToken, client: Dataset.appB, realm: tenant)
            // The lookup keys the engine would set (ignored by a store that keeps none).
            batch.append(.setLookupKeys(accountItem.partition, keys: [LookupKey.username(username)]))
            if batch.count >= 20_000 { try flush() }
        }
        batch.append(.declareLookupKeysComplete(accessGroup: group))
        try flush()
    }
}
