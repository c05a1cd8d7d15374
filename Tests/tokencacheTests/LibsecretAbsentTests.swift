import Foundation
import TestSupport
import Testing

/// The CLI on a machine without libsecret: `TOKENCACHE_LIBSECRET` names a library that does not
/// exist, as on a server or container where libsecret-1-0 is not installed. A session bus address is
/// set (pointing nowhere), so what stops the Secret Service is the missing library, not the bus: with
/// libsecret present the errors would name the bus instead.
@Suite("tokencache without libsecret")
struct LibsecretAbsentTests {
    let cli: CLI
    let missing: String
    let environment: [String: String]

    init() throws {
        cli = try CLI()
        missing = cli.home.path("no-such-dir/libsecret-1.so.0")
        environment = ["TOKENCACHE_LIBSECRET": missing, "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(cli.home.path("no-bus"))"]
    }

    /// The typed message, with what was tried, the loader's reason and the remedy.
    func expectTypedMessage(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(text.contains("libsecret could not be loaded (tried \(missing): \(missing): cannot open shared object file"),
                "\(text)", sourceLocation: sourceLocation)
        #expect(text.contains("apt-get install libsecret-1-0"), sourceLocation: sourceLocation)
        #expect(!text.contains("error while loading shared libraries"), sourceLocation: sourceLocation)
        #expect(!text.contains("cannot connect to the D-Bus session bus"), sourceLocation: sourceLocation)
    }

    @Test func aSQLiteStoreImportsListsAndDumpsWithAKeyFile() throws {
        defer { cli.home.cleanUp() }
        let file = InterchangeCommandTests.fixturePath("msal-dotnet/MultiCloudTokenCache.json")
        let imported = try cli.run("import", file, environment: environment)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.hasPrefix("Imported 13 items"))
        #expect(imported.errors.contains("tokencache: note: no Secret Service is reachable"), "the key file fallback of TOKENCACHE_KEY=auto")
        #expect(try posixMode(cli.defaultStorePath + ".key") == 0o600)

        let accounts = try cli.run("accounts", environment: environment)
        #expect(accounts.status == 0, "\(accounts.errors)")
        #expect(accounts.output.contains("usercn@cloudcn.partner.onmschina.cn"))
        let dump = try cli.run("dump", environment: environment)
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(!dump.output.isEmpty)
        #expect(dump.errors.isEmpty)
    }

    @Test func theSecretServiceStoreExits74WithTheTypedMessage() throws {
        defer { cli.home.cleanUp() }
        for command in ["accounts", "dump"] {
            let result = try cli.run(command, "--store", "secret-service", environment: environment)
            #expect(result.status == 74)
            expectTypedMessage(result.errors)
        }
    }

    @Test func requiringSecretServiceKeysExits74AndCreatesNothing() throws {
        defer { cli.home.cleanUp() }
        let result = try cli.run("dump", environment: environment.merging(["TOKENCACHE_KEY": "secret-service"]) { $1 })
        #expect(result.status == 74)
        expectTypedMessage(result.errors)
        #expect(!FileManager.default.fileExists(atPath: cli.defaultStorePath + ".key"))
    }

    @Test func sdkImportsSkipTheKeyringWithANoteAndReadTheFiles() throws {
        defer { cli.home.cleanUp() }
        try FileManager.default.createDirectory(atPath: cli.home.path(".azure"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: InterchangeCommandTests.fixturePath("msal-dotnet/ExpectedTokenCache.json"), toPath: cli.home.path(".azure/msal_token_cache.json"))

        let auto = try cli.run("import", "sdk", "--from", "auto", environment: environment)
        #expect(auto.status == 0, "\(auto.errors)")
        #expect(auto.output.contains("found file:azure-cli"))
        #expect(auto.errors.contains("note: the Secret Service was not searched: libsecret could not be loaded"))
        expectTypedMessage(auto.errors)

        let keyring = try cli.run("import", "sdk", "--from", "secret-service:azure-cli", environment: environment)
        #expect(keyring.status == 74)
        expectTypedMessage(keyring.errors)
    }

    @Test func doctorWarnsAndTheSQLiteStoreStaysUsable() throws {
        defer { cli.home.cleanUp() }
        let report = try cli.run("doctor", environment: environment)
        #expect(report.status == 0, "\(report.output)")
        #expect(report.output.contains("[warning] libsecret: libsecret could not be loaded"))
        expectTypedMessage(report.output)
        #expect(report.output.contains("key source: key file \(cli.defaultStorePath).key"))

        let secretService = try cli.run("doctor", "--store", "secret-service", environment: environment)
        #expect(secretService.status == 74)
        #expect(secretService.output.contains("NOT usable"))
    }

    @Test func aLibraryWithoutLibsecretsFunctionsIsUnavailableToo() throws {
        defer { cli.home.cleanUp() }
        // libc loads, but has none of libsecret's functions.
        let result = try cli.run("accounts", "--store", "secret-service", environment: environment.merging(["TOKENCACHE_LIBSECRET": "libc.so.6"]) { $1 })
        #expect(result.status == 74)
        #expect(result.errors.contains("libsecret could not be loaded (tried libc.so.6: "), "\(result.errors)")
        #expect(result.errors.contains("undefined symbol: g_free"))
    }

    @Test func aRelativeLibraryPathIsRefused() throws {
        defer { cli.home.cleanUp() }
        let result = try cli.run("accounts", "--store", "secret-service", environment: environment.merging(["TOKENCACHE_LIBSECRET": "lib/libsecret-1.so.0"]) { $1 })
        #expect(result.status == 74)
        #expect(result.errors.contains("TOKENCACHE_LIBSECRET must be a library name or an absolute path"), "\(result.errors)")
    }

    @Test(.enabled(if: LibsecretAbsentTests.libsecretInstalled, "libsecret-1.so.0 is not installed here"))
    func doctorNamesTheInstalledLibrary() throws {
        defer { cli.home.cleanUp() }
        let report = try cli.run("doctor")
        #expect(report.output.contains("[ok     ] libsecret: loaded (libsecret-1.so.0)"), "\(report.output)")
    }

    /// Whether the system has libsecret (CI installs it); this test process does not link it.
    static let libsecretInstalled: Bool = {
        guard let handle = dlopen("libsecret-1.so.0", RTLD_LAZY | RTLD_LOCAL) else { return false }
        dlclose(handle)
        return true
    }()
}
