import CacheStore
import Foundation
import TestSupport
import Testing
import TokenCacheInterchange
import TokenCacheSchema

/// A store written before each account kept its own sign-in state (MSAL ObjC's per-app item, type
/// 5001, holding every account's), opened by many `tokencache` processes at once: each files the
/// entries per account under the store's write lock, so every process answers the same and the
/// store ends with each account's item once and the app's item gone.
@Suite("tokencache: many processes filing a legacy store's account metadata at once", .serialized)
struct AccountMetadataFilingCommandTests {
    static let group = "com.microsoft.adalcache"
    static let accounts = 40

    static func home(_ index: Int) -> String { "u\(index).utid" }

    /// Account records of every home, and one 5001 item of `client`: even accounts signed in, odd
    /// ones signed out.
    static func legacyItems() throws -> [StoreItem] {
        var items: [StoreItem] = []
        var metadata = AccountMetadata(clientId: "client")
        for index in 0..<accounts {
            let account = try Account(jsonObject: [
                "authority_type": "MSSTS", "home_account_id": .string(home(index)), "environment": "login.microsoftonline.com",
                "realm": "utid", "local_account_id": .string("u\(index)"), "username": .string("u\(index)@contoso.com"),
            ])
            items.append(try account.storeItem(accessGroup: group))
            metadata.setSignInState(index % 2 == 0 ? .signedIn : .signedOut, homeAccountId: home(index))
        }
        items.append(try metadata.storeItem(accessGroup: group))
        return items
    }

    /// `sqlite`, and the Redis servers of `scripts/redis-servers.sh` when it runs the tests.
    static var backends: [String] { ["sqlite"] + RedisCommandTests.specs }

    @Test("8 processes open a legacy store at once, 5 rounds: the same accounts everywhere, each account's state filed once", arguments: backends)
    func openersFileOnce(backend: String) throws {
        // A whole-store open files the entries (a full listing reads only the kinds it shows).
        try fileAtOnce(backend: backend) { _ in ["accounts", "--client-id", "client", "--json", "--whole-store"] }
    }

    /// `accounts --identifier` reads only the partitions it needs (partition mode), and files the
    /// app's item all the same, without a whole read.
    @Test("8 targeted processes (partition mode) open a legacy store at once, 5 rounds: each account's state filed once", arguments: backends)
    func targetedOpenersFileOnce(backend: String) throws {
        try fileAtOnce(backend: backend) { process in
            ["accounts", "--client-id", "client", "--identifier", Self.home(process), "--json"]
        }
    }

    /// Runs `command(process)` in 8 processes at once on a fresh legacy store, 5 times; each lists
    /// the signed-in accounts among those it asks about (every account without `--identifier`,
    /// exiting 1 when it finds none), and the store ends filed once.
    private func fileAtOnce(backend: String, _ command: (Int) -> [String]) throws {
        #expect(!backend.hasPrefix("missing:"), "run the tests through scripts/test.sh, which starts Redis")
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let file = cli.home.path("legacy.json")
        try KeychainItemsFormat.encode(try Self.legacyItems()).write(to: URL(fileURLWithPath: file))
        var environment = ConcurrentFirstUseTests.keyEnvironment
        if backend != "sqlite" {
            environment["TOKENCACHE_REDIS_KEY"] = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        }
        for round in 0..<5 {
            let store = backend == "sqlite"
                ? cli.home.path("round-\(round)/cache.sqlite")
                : backend + (backend.contains("?") ? "&" : "?") + "prefix=filing-\(UUID().uuidString)"
            let spec = backend == "sqlite" ? "sqlite:\(store)" : store
            let writer = try ChildProcess("store-worker", ["import", store, Self.group, file], environment: cli.environment.merging(environment) { $1 })
            let (status, errors) = writer.wait()
            try #require(status == 0, "\(errors)")

            let processes = try (0..<ConcurrentFirstUseTests.openers).map { number in
                let arguments = command(number)
                return (arguments, try ChildProcess(
                    "tokencache", arguments + ["--store", spec], environment: cli.environment.merging(environment) { $1 }))
            }
            for (number, (arguments, process)) in processes.enumerated() {
                let (status, errors) = process.wait()
                let expected = Set((arguments.contains("--identifier") ? [number] : Array(0..<Self.accounts)).filter { $0 % 2 == 0 }.map(Self.home))
                #expect(status == (expected.isEmpty ? 1 : 0), "round \(round): \(errors)")
                guard !expected.isEmpty else { continue }
                let listed = try JSONSerialization.jsonObject(with: Data(process.output.utf8)) as? [[String: Any]]
                #expect(Set((listed ?? []).compactMap { $0["home_account_id"] as? String }) == expected, "round \(round)")
            }

            let dump = try cli.run("dump", "--json", "--store", spec, environment: environment)
            #expect(dump.status == 0, "\(dump.errors)")
            let items = try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [[String: Any]])
            let own = items.filter { $0["type"] as? Int == 9001 }
            #expect(own.count == Self.accounts, "round \(round)")
            #expect(Set(own.compactMap { $0["account"] as? String }).count == Self.accounts)
            #expect(!items.contains { $0["type"] as? Int == 5001 }, "round \(round)")
            let signedOut = own.filter { (($0["payload"] as? [String: Any])?["sign_in_state"] as? String) == "signed_out" }
            #expect(signedOut.count == Self.accounts / 2)
        }
    }
}
