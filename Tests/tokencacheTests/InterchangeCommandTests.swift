import CacheStore
import CacheStoreLocation
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing
import TokenCacheJSON
import TokenCacheSchema
import TokenCacheInterchange

/// `import`, `export` and `dump` as a user runs them.
@Suite("tokencache: import, export, dump payloads")
struct InterchangeCommandTests {
    /// A shared fixture, read in place.
    static func fixturePath(_ name: String) -> String { Fixtures.url(name).path }

    @Test func importedFixtureListsAccountsAndRefreshTokens() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let file = Self.fixturePath("msal-dotnet/MultiCloudTokenCache.json")
        let result = try cli.run("import", file)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasPrefix("Imported 13 items from \(file) (msal-json): 13 added, 0 replaced."))

        let accounts = try cli.run("accounts")
        #expect(accounts.output.contains("usercn@cloudcn.partner.onmschina.cn"))
        #expect(accounts.output.contains("userde@cloudde.onmicrosoft.de"))
        let rt = try cli.run("lookup", "refresh-token", "--client-id", "0615b6ca-88d4-4884-8729-b178178f7c27", "--username", "USER@cloud.onmicrosoft.com")
        #expect(rt.status == 0, "\(rt.errors)")
        #expect(rt.output.contains("RefreshToken for ae821e4d-f408-451a-af82-882691148603.49f548d0-12b7-4169-a390-bb5304d24462"))

        let again = try cli.run("import", "--format", "msal-json", file)
        #expect(again.output.contains("0 added, 13 replaced"))
    }

    @Test func aMalformedFileImportsNothingAndExits65() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        #expect(try cli.run("import", Self.fixturePath("msal-node/cache.json")).status == 0)
        let before = try cli.run("export", "--format", "keychain-items").output

        var text = try String(contentsOfFile: Self.fixturePath("msal-dotnet/ExpectedTokenCache.json"), encoding: .utf8)
        text = String(text.dropLast(40))
        let bad = cli.home.path("truncated.json")
        try text.write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try cli.run("import", bad)
        #expect(result.status == 65)
        #expect(result.errors.contains("\(bad): not valid JSON: the document ends too early (truncated?) at line"))
        #expect(!result.errors.contains("access_token_secret"))

        let wrongType = cli.home.path("wrong.json")
        try #"{"RefreshToken": {"k": {"secret": "TOP-SECRET", "client_id": {}}}}"#.write(toFile: wrongType, atomically: true, encoding: .utf8)
        let typed = try cli.run("import", wrongType)
        #expect(typed.status == 65)
        #expect(typed.errors.contains("\(wrongType): RefreshToken 'k': field 'client_id' must be a string"))
        #expect(!typed.errors.contains("TOP-SECRET"))

        let wrongFormat = try cli.run("import", "--format", "msal-v2", Self.fixturePath("msal-node/cache.json"))
        #expect(wrongFormat.status == 65)
        #expect(try cli.run("import", "--format", "adal-v9", bad).status == 2)
        #expect(try cli.run("import", cli.home.path("missing.json")).status == 74)

        #expect(try cli.run("export", "--format", "keychain-items").output == before)
    }

    @Test func importReadsStandardInputAndReportsSkippedEntries() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixturePath("msal-go/test_serialized_cache.json")))
        let result = try cli.run("import", "-", input: data)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Imported 5 items from stdin (msal-json)"))
        #expect(result.output.contains("skipped: AccessToken 'an-entry': no 'secret'"))
    }

    @Test func exportWritesAPrivateFileAndMergesIntoAnExistingOne() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        #expect(try cli.run("import", Self.fixturePath("msal-node/cache.json")).status == 0)
        let output = cli.home.path("shared-cache.json")
        try #"{"Foo": {"from": "another SDK"}, "RefreshToken": {"someone-else": {"secret": "x", "client_id": "other", "home_account_id": "o.t", "environment": "e"}}}"#
            .write(toFile: output, atomically: true, encoding: .utf8)
        let result = try cli.run("export", "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Exported 8 entries to \(output) (msal-json); kept 1 entry and 1 other node of the file."))
        #expect(try posixMode(output) == 0o600)
        let document = try #require(try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: output))).objectValue)
        #expect(document["Foo"] == ["from": "another SDK"])
        #expect(document["RefreshToken"]?.objectValue?["someone-else"] != nil)
        #expect(document["RefreshToken"]?.objectValue?["uid.utid-login.microsoftonline.com-refreshtoken-mock_client_id--"] != nil)

        let fresh = cli.home.path("fresh.json")
        #expect(try cli.run("export", "-o", fresh).status == 0)
        #expect(try posixMode(fresh) == 0o600)

        // The exported file imports into another store with the same accounts.
        let other = "sqlite:" + cli.home.path("other.sqlite")
        #expect(try cli.run("import", fresh, "--store", other).status == 0)
        #expect(try cli.run("accounts", "--store", other).output.contains("johndoe@microsoft.com"))

        let piped = try cli.run("export")
        #expect(piped.status == 0)
        #expect(piped.output.hasPrefix(#"{"AccessToken":{"#))
    }

    @Test func keychainItemsMoveEveryItemBetweenStores() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = cli.home.path("a.sqlite")
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["com.microsoft.adalcache"]))
        try store.save([
            StoreItem(accessGroup: "com.microsoft.adalcache", account: "x", service: "legacy", generic: Data([0xC3, 0x28]), data: Data([0, 1, 2])),
            StoreItem(accessGroup: "com.microsoft.adalcache", account: "y", service: "z", type: 2002, data: Data(#"{"secret":"s"}"#.utf8)),
        ])
        let file = cli.home.path("items.json")
        #expect(try cli.run("export", "--format", "keychain-items", "--output", file, "--store", "sqlite:\(path)").status == 0)
        #expect(try posixMode(file) == 0o600)
        let target = cli.home.path("b.sqlite")
        let result = try cli.run("import", file, "--store", "sqlite:\(target)")
        #expect(result.output.contains("Imported 2 items from \(file) (keychain-items)"), "\(result.errors)")
        // The CLI sealed the imported payloads; open the store as it does, with the same key source.
        let copied = try StoreOpener.open(
            .sqlite(path: target), accessGroups: try AccessGroups(["com.microsoft.adalcache"]),
            environment: cli.environment, notice: { _ in }
        ).allItems()
        #expect(copied.map(\.data) == [Data([0, 1, 2]), Data(#"{"secret":"s"}"#.utf8)])
        #expect(copied.first?.generic == Data([0xC3, 0x28]))
    }

    @Test func dumpShowsDecodedPayloadsWithSecretsRedacted() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        #expect(try cli.run("import", Self.fixturePath("msal-node/cache.json")).status == 0)

        let human = try cli.run("dump")
        #expect(human.status == 0)
        #expect(human.output.contains("\"secret\": \"<redacted: 15 chars>\""))
        #expect(human.output.contains("\"target\": \"scope1 scope2 scope3\""))
        #expect(!human.output.contains("an access token"))
        #expect(human.output.hasSuffix("8 items\n"))

        let json = try cli.run("dump", "--json")
        let items = try #require(try JSONValue.parse(Data(json.output.utf8)) .arrayValue)
        #expect(items.count == 8)
        #expect(!json.output.contains("a refresh token"))
        let first = try #require(items.first?.objectValue)
        #expect(Set(first.keys).isSuperset(of: ["access_group", "account", "service", "generic", "type", "payload", "created", "modified"]))
        #expect(first["data"] == nil)

        let revealed = try cli.run("dump", "--json", "--reveal-secrets")
        #expect(revealed.output.contains("\"secret\": \"a refresh token\""))
    }
}

extension JSONValue {
    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}

@Suite("tokencache: ADAL formats")
struct ADALCommandTests {
    @Test func importsTheADALNetFixtureByContentAndExportsADALNetBlobs() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let fixture = Fixtures.url("adal-dotnet/oldcache.serialized").path
        let imported = try cli.run("import", fixture)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("(adal-v3)"))
        let accounts = try cli.run("accounts", "--json")
        #expect(accounts.status == 0)
        #expect(try JSONValue.parse(Data(accounts.output.utf8)).arrayValue?.count == 14)

        let output = cli.home.path("adal.cache")
        let exported = try cli.run("export", "--format", "adal-v3", "--output", output)
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(try posixMode(output) == 0o600)
        let entries = try ADALNetV3Blob.read(Data(contentsOf: URL(fileURLWithPath: output)), source: output)
        #expect(entries.count == 14, "one refresh token per user and client")
    }
}
