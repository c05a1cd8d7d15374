import Benchmark
import CacheStore
import CacheStoreSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#endif
import TokenCache
import TokenCacheInterchange
import TokenCacheSchema

/// A cache of 10,000 accounts in the shape MSAL Python writes, for timing the open of a large store.
///
/// Each user signed in once to one public client (account, ID token, refresh token, app metadata)
/// and then asked for 7 or 8 more scope sets silently: 8 or 9 access tokens each, 116,668 items in
/// all. The entries are MSAL Python 1.39's, member for member (`token_type`, `last_modification_time`
/// and `account_source` included), with the offline STS's token values of `bindings/python/tests`
/// (short access and refresh tokens, an unsigned ID token), so the store is the one
/// `Benchmarks/python/bench.py` builds at 10,000 accounts with more access tokens per account. The
/// document is written as MSAL JSON and imported, as the plugin imports one.
///
/// Built once per hour like ``Dataset`` (a few seconds), and only by the processes that run a
/// benchmark over it.
struct LargeDataset: Sendable {
    /// The dataset, built (or found) the first time a benchmark of this process asks.
    static let shared = Result { try make() }

    static let accountCount = 10_000
    static let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    static let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let environment = "login.microsoftonline.com"
    static let scopeSets = [
        "User.Read", "Mail.Read", "Files.ReadWrite", "Calendars.Read Contacts.Read", "Sites.Read.All",
        "Tasks.ReadWrite", "Notes.Read", "People.Read", "Chat.Read",
    ]

    let path: String
    /// The search MSAL Python's `acquire_token_silent` makes (through the plugin) for one access
    /// token of an account in the middle of the store. Its entries say `"realm": "organizations"`,
    /// which an ``AccessTokenQuery`` reads as the home tenant, so the lookup is MSAL Python's own.
    let search: CacheSearch

    static func make() throws -> LargeDataset {
        let hour = Int(Date().timeIntervalSince1970 / 3600)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-bench-\(getuid())-\(hour)-msal-python-10k")
        let path = directory.appendingPathComponent("cache.sqlite").path
        let ready = directory.appendingPathComponent("ready").path
        if !FileManager.default.fileExists(atPath: ready) {
            // Stale datasets of earlier hours are removed by Dataset.make, which shares the prefix.
            try? FileManager.default.removeItem(at: directory)
            let store = try SQLiteStore(path: path, accessGroups: try AccessGroups([Dataset.group]))
            _ = try CacheInterchange(store: store).importData(document(), source: "generated MSAL Python cache", format: .msalJSON)
            _ = FileManager.default.createFile(atPath: ready, contents: nil)
        }
        let middle = accountCount / 2
        let search = CacheSearch(
            kind: .accessToken,
            query: [
                "home_account_id": .string(homeAccountId(middle)), "environment": .string(environment),
                "client_id": .string(clientId), "realm": "organizations",
            ],
            target: scopeSets[3].split(separator: " ").map(String.init))
        return LargeDataset(path: path, search: search)
    }

    static func uid(_ index: Int) -> String { String(format: "%08x-0000-4000-8000-%012x", index, index) }
    static func homeAccountId(_ index: Int) -> String { "\(uid(index)).\(tenant)" }

    /// The MSAL JSON document MSAL Python serializes for these sign-ins.
    static func document() -> Data {
        let now = Int(Date().timeIntervalSince1970)
        // Valid for a day: the lookup finds its token whenever the dataset was built this hour.
        let expires = now + 86_400
        var accessTokens: [String] = []
        var accounts: [String] = []
        var idTokens: [String] = []
        var refreshTokens: [String] = []
        var serial = 0
        func quoted(_ text: String) -> String { "\"\(text)\"" }
        func object(_ members: [(String, String)]) -> String {
            "{" + members.map { "\(quoted($0.0)): \(quoted($0.1))" }.joined(separator: ", ") + "}"
        }
        func base64url(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        for index in 0..<accountCount {
            let uid = uid(index)
            let home = homeAccountId(index)
            let username = "user\(index)@contoso.com"
            let sets = index % 3 == 0 ? 8 : 9
            for scopes in scopeSets.prefix(sets) {
                serial += 1
                let key = "\(home)-\(environment)-accesstoken-\(clientId)-organizations-\(scopes.lowercased())"
                accessTokens.append(quoted(key) + ": " + object([
                    ("credential_type", "AccessToken"), ("secret", "at-seed-\(serial)-\(uid.prefix(8))"),
                    ("home_account_id", home), ("environment", environment), ("client_id", clientId),
                    ("target", scopes), ("realm", "organizations"), ("token_type", "Bearer"),
                    ("cached_at", String(now)), ("expires_on", String(expires)), ("extended_expires_on", String(expires)),
                ]))
            }
            accounts.append(quoted("\(home)-\(environment)-organizations") + ": " + object([
                ("home_account_id", home), ("environment", environment), ("realm", "organizations"),
                ("local_account_id", uid), ("username", username), ("authority_type", "MSSTS"),
                ("account_source", "authorization_code"),
            ]))
            let claims = #"{"aud": "\#(clientId)", "iss": "https://\#(environment)/\#(tenant)/v2.0", "iat": \#(now), "nbf": \#(now), "exp": \#(now + 3600), "name": "user\#(index)", "oid": "\#(uid)", "preferred_username": "\#(username)", "sub": "sub-\#(uid)", "tid": "\#(tenant)", "ver": "2.0"}"#
            idTokens.append(quoted("\(home)-\(environment)-idtoken-\(clientId)-organizations-") + ": " + object([
                ("credential_type", "IdToken"),
                ("secret", base64url(#"{"alg": "none", "typ": "JWT"}"#) + "." + base64url(claims) + ".sig"),
                ("home_account_id", home), ("environment", environment), ("realm", "organizations"), ("client_id", clientId),
            ]))
            refreshTokens.append(quoted("\(home)-\(environment)-refreshtoken-\(clientId)--user.read") + ": " + object([
                ("credential_type", "RefreshToken"), ("secret", "rt-seed-\(serial)-\(uid.prefix(8))"),
                ("home_account_id", home), ("environment", environment), ("client_id", clientId),
                ("target", "User.Read"), ("last_modification_time", String(now)),
            ]))
        }
        let appMetadata = quoted("appmetadata-\(environment)-\(clientId)") + ": "
            + object([("client_id", clientId), ("environment", environment)])
        func section(_ name: String, _ entries: [String]) -> String { quoted(name) + ": {" + entries.joined(separator: ", ") + "}" }
        let text = "{" + [
            section("AccessToken", accessTokens), section("Account", accounts), section("IdToken", idTokens),
            section("RefreshToken", refreshTokens), section("AppMetadata", [appMetadata]),
        ].joined(separator: ", ") + "}"
        return Data(text.utf8)
    }
}

/// "open store and first lookup, 10,000 accounts": the whole-store open on the large cache. The
/// dataset is built in the benchmark's setup, so only the process that runs it pays for it, untimed.
func registerLargeOpenBenchmark(short: Bool) {
    Benchmark(
        "open store and first lookup, 10,000 accounts",
        configuration: .init(scalingFactor: .one, maxDuration: short ? .seconds(2) : .seconds(10), maxIterations: short ? 5 : 30),
        closure: { benchmark in
            let dataset = try LargeDataset.shared.get()
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let store = try SQLiteStore(path: dataset.path, accessGroups: try AccessGroups([Dataset.group]))
                let cache = try TokenCache(store: store)
                let found = try cache.search(dataset.search)
                // Releasing the engine afterwards is not part of opening it.
                withExtendedLifetime(cache) { benchmark.stopMeasurement() }
                precondition(found.count == 1, "the large dataset's query found no token")
            }
        },
        setup: { _ = try LargeDataset.shared.get() })
}
