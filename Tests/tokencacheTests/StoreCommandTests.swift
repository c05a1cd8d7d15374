import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing
import TokenCacheInterchange

@Suite("tokencache: store selection and dump")
struct StoreCommandTests {
    @Test func firstUseOnAFreshHomeCreatesThePrivateDefaultStore() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try cli.run("dump")
        #expect(result.status == 0, "\(result.errors)")
        #expect(FileManager.default.fileExists(atPath: cli.defaultStorePath))
        #expect(try posixMode(cli.defaultStorePath) == 0o600)
        #expect(try posixMode(cli.home.path(".local/share/tokencache")) == 0o700)
        #expect(try posixMode(cli.home.path(".local/share")) == 0o700)
    }

    @Test func xdgDataHomeMovesTheDefaultStore() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let data = cli.home.path("xdg")
        #expect(try cli.run("dump", environment: ["XDG_DATA_HOME": data]).status == 0)
        #expect(FileManager.default.fileExists(atPath: data + "/tokencache/cache.sqlite"))
    }

    @Test func dumpHidesPayloadsUnlessAsked() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = cli.home.path("c.sqlite")
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["com.microsoft.adalcache", "other"]))
        try store.save([
            StoreItem(accessGroup: "com.microsoft.adalcache", account: "uid.utid-login.windows.net", service: "refreshtoken-c--",
                      generic: Data("refreshtoken-c-".utf8), type: 2002, data: Data(#"{"secret":"SECRET-RT-VALUE"}"#.utf8)),
            StoreItem(accessGroup: "other", account: "x", service: "y", data: Data("OTHER-GROUP-DATA".utf8)),
        ])

        let human = try cli.run("dump", "--store", "sqlite:\(path)")
        #expect(human.status == 0)
        #expect(human.output.contains("refreshtoken-c--"))
        #expect(human.output.contains("1 item"))
        #expect(!human.output.contains("SECRET-RT-VALUE"))
        #expect(!human.output.contains("OTHER-GROUP"), "only the default access group is open")

        let json = try cli.run("dump", "--json", "--store", "sqlite:\(path)")
        #expect(json.status == 0)
        #expect(!json.output.contains(Data(#"{"secret":"SECRET-RT-VALUE"}"#.utf8).base64EncodedString()))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(parsed.count == 1)
        #expect(parsed[0]["type"] as? Int == 2002)
        #expect(parsed[0]["generic"] as? String == "refreshtoken-c-")
        #expect(parsed[0]["data"] == nil)

        let revealed = try cli.run("dump", "--json", "--reveal-secrets", "--store", "sqlite:\(path)",
                                   "--access-group", "com.microsoft.adalcache", "--access-group", "other")
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(revealed.output.utf8)) as? [[String: Any]])
        #expect((shown[0]["payload"] as? [String: Any])?["secret"] as? String == "SECRET-RT-VALUE")
        #expect(shown[1]["data"] as? String == Data("OTHER-GROUP-DATA".utf8).base64EncodedString())
        // The lossless form of the items is `export --format keychain-items`.
        let exported = try cli.run("export", "--format", "keychain-items", "--store", "sqlite:\(path)",
                                   "--access-group", "com.microsoft.adalcache", "--access-group", "other")
        let items = try KeychainItemsFormat.decode(Data(exported.output.utf8), source: "export output")
        #expect(items.map(\.data) == [Data(#"{"secret":"SECRET-RT-VALUE"}"#.utf8), Data("OTHER-GROUP-DATA".utf8)])

        let viaEnvironment = try cli.run("dump", "--json", environment: [
            "TOKENCACHE_STORE": "sqlite:\(path)", "TOKENCACHE_ACCESS_GROUPS": "other"])
        #expect(viaEnvironment.output.contains("\"account\": \"x\""))
    }

    @Test func memoryStoreNeedsNoFiles() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try cli.run("dump", "--store", "memory")
        #expect(result.status == 0)
        #expect(result.output == "0 items\n")
        #expect(!FileManager.default.fileExists(atPath: cli.home.path(".local")))
    }

    @Test func badStoreSpecificationIsAUsageError() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try cli.run("dump", "--store", "postgres://nope")
        #expect(result.status == 2)
        #expect(result.errors.contains("known stores are sqlite:PATH, secret-service[:COLLECTION], redis://HOST"), "\(result.errors)")
        #expect(result.errors.contains("or memory"))
    }

    @Test func withNoPlaceForTheDefaultStoreTheCLINamesItsFlag() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try cli.run("dump", environment: ["HOME": "relative", "XDG_DATA_HOME": ""])
        #expect(result.status == 2)
        #expect(result.errors.contains("neither XDG_DATA_HOME nor HOME is an absolute path; choose another store with --store sqlite:PATH"))
    }

    @Test func aFileThatIsNotAStoreIsADataErrorAndIsNotTouched() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = cli.home.path("notes.txt")
        let content = Data(String(repeating: "these are not tokens\n", count: 300).utf8)
        try content.write(to: URL(fileURLWithPath: path))
        let result = try cli.run("dump", "--store", "sqlite:\(path)")
        #expect(result.status == 65)
        #expect(result.errors.contains(path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
    }

    @Test func anUncreatableStoreIsAnIOError() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try cli.run("dump", "--store", "sqlite:/proc/nope/cache.sqlite")
        #expect(result.status == 74)
        #expect(result.errors.contains("cannot create /proc/nope"))
    }
}
