import Foundation
import TestSupport
import Testing

/// `dump FILE` and `dump sdk --from`: any cache `import` reads, shown redacted, nothing written.
@Suite("tokencache dump FILE, dump sdk")
struct DumpCommandTests {
    static let nodeFixture = InterchangeCommandTests.fixturePath("msal-node/cache.json")
    static let adalFixture = InterchangeCommandTests.fixturePath("adal-objc/adal1x-token-cache-store-item.bplist")

    @Test func aCacheFileIsShownRedactedAndNothingIsWritten() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let dump = try cli.run("dump", Self.nodeFixture)
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(dump.output.contains("service: accesstoken-"), "\(dump.output)")
        #expect(dump.output.hasSuffix("8 items\n"), "\(dump.output)")
        #expect(dump.output.contains("<redacted"))
        #expect(!dump.output.contains("an access token") && !dump.output.contains("a refresh token"))
        #expect(dump.errors.contains("msal-json, ") && dump.errors.contains("nothing was imported"), "\(dump.errors)")
        #expect(!FileManager.default.fileExists(atPath: cli.defaultStorePath), "no store is created")

        let revealed = try cli.run("dump", Self.nodeFixture, "--json", "--reveal-secrets")
        #expect(revealed.status == 0)
        #expect(revealed.output.contains("an access token"))
        let items = try JSONSerialization.jsonObject(with: Data(revealed.output.utf8)) as? [[String: Any]]
        #expect(items?.count == 8)
        #expect(items?.allSatisfy { $0["access_group"] as? String == "com.microsoft.adalcache" } == true)
    }

    @Test func everyFormatImportReadsIsShownAndTheStoreIsUntouched() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        #expect(try cli.run("import", Self.nodeFixture).status == 0)
        let before = try cli.run("dump")
        let adal = try cli.run("dump", Self.adalFixture, "--access-group", "com.example.group")
        #expect(adal.status == 0, "\(adal.errors)")
        #expect(adal.output.contains("group:   com.example.group"), "\(adal.output)")
        #expect(adal.output.contains("MSOpenTech.ADAL.1"), "\(adal.output)")
        #expect(!adal.output.contains("<access token>") && !adal.output.contains("<refresh token>"))
        #expect(try cli.run("dump").output == before.output, "the store is unchanged")

        let stdin = try cli.run("dump", "-", input: try Data(contentsOf: URL(fileURLWithPath: Self.nodeFixture)))
        #expect(stdin.status == 0 && stdin.output.hasSuffix("8 items\n"), "\(stdin.errors)")
    }

    @Test func aBadFileIsABadInputErrorNamingIt() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = cli.home.path("broken.json")
        try Data("{\"AccessToken\": {".utf8).write(to: URL(fileURLWithPath: path))
        let broken = try cli.run("dump", path)
        #expect(broken.status == 65)
        #expect(broken.errors.contains(path), "\(broken.errors)")
        let missing = try cli.run("dump", cli.home.path("absent.json"))
        #expect(missing.status != 0 && missing.errors.contains("absent.json"))
        #expect(try cli.run("dump", "--format", "msal-json").status == 2, "--format needs a FILE")
    }

    @Test func anSDKCacheIsShownWithoutImportingIt() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let nothing = try cli.run("dump", "sdk", "--from", "file:azure-cli")
        #expect(nothing.status == 1)
        #expect(nothing.errors.contains("no file:azure-cli token cache found"), "\(nothing.errors)")

        try SDKFileImportCommandTests.place(Self.nodeFixture, at: cli.home.path(".azure/msal_token_cache.json"))
        let dump = try cli.run("dump", "sdk", "--from", "file:azure-cli")
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(dump.output.hasSuffix("8 items\n"), "\(dump.output)")
        #expect(!dump.output.contains("an access token"))
        #expect(dump.errors.contains("found file:azure-cli") && dump.errors.contains("nothing was imported"), "\(dump.errors)")
        #expect(!FileManager.default.fileExists(atPath: cli.defaultStorePath), "no store is created")

        let auto = try cli.run("dump", "sdk", "--from", "auto", "--json")
        #expect(auto.status == 0, "\(auto.errors)")
        #expect(auto.errors.contains("the Secret Service was not searched"))
    }
}
