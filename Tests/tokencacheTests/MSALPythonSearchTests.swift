import CacheStore
import CacheStoreMemory
import Foundation
import TestSupport
import Testing
import TokenCache
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

/// `TokenCache.search` against MSAL Python 1.39's own `TokenCache.search` over the same entries:
/// MSAL Python writes a cache, it is imported into a store, and MSAL Python searches the store's
/// export (not its own file: MSAL Python keys refresh tokens by target too, the unified schema keeps
/// one per app and account, so the store holds fewer of them). Every query must yield the same.
@Suite("MSAL Python search", .enabled(if: MSALPython.executable != nil || MSALPython.isCI))
struct MSALPythonSearchTests {
    static let alice = "7a3c5f10-0000-4000-8000-00000000a11c.72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let bob = "b0b0b0b0-0000-4000-8000-0000000000b0.f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let aliceTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let guestTenant = "49f548d0-12b7-4169-a390-bb5304d24462"
    static let app = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    static let familyApp = "1950a258-227b-4e31-a9cf-717495945fc2"
    static let host = "login.microsoftonline.com"

    /// The searches MSAL Python makes (application.py) and some it does not.
    static func queries(now: Int64) -> [CacheSearch] {
        let home: JSONValue = .string(alice)
        return [
            CacheSearch(kind: .accessToken, query: ["home_account_id": home, "environment": .string(host), "client_id": .string(app), "realm": .string(aliceTenant)], target: ["User.Read"], now: now),
            CacheSearch(kind: .accessToken, query: ["home_account_id": home, "environment": .string(host), "client_id": .string(app)], target: ["Mail.Read"], now: now),
            CacheSearch(kind: .accessToken, query: ["client_id": .string(app)], now: now),
            CacheSearch(kind: .accessToken, query: ["environment": "LOGIN.MicrosoftOnline.com", "client_id": .string(app)], target: ["User.Read", "Mail.Read"], now: now),
            CacheSearch(kind: .accessToken, query: ["home_account_id": .null, "client_id": .string(app)], now: now),
            CacheSearch(kind: .accessToken, query: ["client_id": .string(app)], target: ["user.read"], now: now),
            CacheSearch(kind: .accessToken, query: ["client_id": .string(app)], now: now + 86_400),
            CacheSearch(kind: .refreshToken, query: ["home_account_id": home, "environment": .string(host)], now: now),
            CacheSearch(kind: .refreshToken, query: ["family_id": "1"], now: now),
            CacheSearch(kind: .refreshToken, query: ["client_id": .string(familyApp), "home_account_id": home], now: now),
            CacheSearch(kind: .refreshToken, query: [:], target: ["Mail.Read"], now: now),
            CacheSearch(kind: .idToken, query: ["home_account_id": home, "environment": .string(host), "realm": .string(guestTenant)], now: now),
            CacheSearch(kind: .idToken, query: ["client_id": .string(app)], now: now),
            CacheSearch(kind: .account, query: ["environment": .string(host)], now: now),
            CacheSearch(kind: .account, query: ["home_account_id": .string(bob)], now: now),
            CacheSearch(kind: .account, query: ["username": "Alice@Contoso.com"], now: now),
            CacheSearch(kind: .appMetadata, query: ["client_id": .string(app), "environment": .string(host)], now: now),
            CacheSearch(kind: .appMetadata, query: [:], now: now),
        ]
    }

    static func identity(_ entry: JSONObject) -> String {
        if let secret = entry["secret"]?.stringValue { return secret }
        func text(_ name: String) -> String { entry[name]?.stringValue ?? "None" }
        if entry["authority_type"] != nil { return "\(text("home_account_id"))/\(text("realm"))" }
        return "\(text("client_id"))/\(text("environment"))"
    }

    @Test func everySearchYieldsWhatMSALPythonYields() throws {
        let python = try MSALPython.require()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path("python-cache.json")
        try python.run("write", cache, directory.path("manifest.json"))

        let store = MemoryStore(accessGroups: try AccessGroups(["com.microsoft.adalcache"]))
        _ = try CacheInterchange(store: store).importFile(atPath: cache, format: .msalJSON)
        let engine = try TokenCache(store: store)
        let exported = directory.path("exported.json")
        _ = try CacheInterchange(store: store).export(.msalJSON, toFile: exported)

        let now = Int64(Date().timeIntervalSince1970)
        let searches = Self.queries(now: now)
        let queries = JSONValue.array(searches.map { search in
            .object(["type": .string(search.kind.rawValue), "query": .object(search.query),
                     "target": .array(search.target.map(JSONValue.string)), "now": .number(JSONNumber(search.now ?? now))])
        })
        try queries.serialized().write(to: URL(fileURLWithPath: directory.path("queries.json")))
        let output = try python.run("search", exported, directory.path("queries.json"))
        guard case .array(let expected)? = try JSONValue.parse(Data(output.utf8)).objectValue?["results"] else {
            Issue.record("MSAL Python gave no results: \(output)")
            return
        }
        #expect(expected.count == searches.count)
        var nonEmpty = 0
        for (search, wanted) in zip(searches, expected) {
            guard case .array(let names) = wanted else { Issue.record("not a list: \(wanted)"); continue }
            let pythonFound = names.compactMap(\.stringValue)
            let found = try engine.search(search).map(Self.identity).sorted()
            #expect(found == pythonFound, "\(search.kind.rawValue) \(JSONValue.object(search.query).serializedString()) target \(search.target)")
            if !pythonFound.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty >= 12, "the queries find something")
    }
}
