@testable import CacheStoreSecretService
import Foundation
import TestSupport
import Testing
import TokenCacheInterchange

let sessionBus = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
let keyringForImports = sessionBus != nil || ProcessInfo.processInfo.environment["CI"] == "true"

/// The keyring side of `import sdk --from`: items seeded with each SDK's exact layout in the throwaway
/// keyring of `scripts/test.sh`, then imported by the CLI. The layouts' attributes are fixed, so the
/// suite runs serialized and removes what it seeds; no other suite uses these attributes.
@Suite("tokencache import sdk --from secret-service", .serialized, .enabled(if: keyringForImports, "needs the D-Bus session with a keyring that scripts/test.sh starts"))
struct SDKKeyringImportCommandTests {
    static let dotnetFixture = InterchangeCommandTests.fixturePath("msal-dotnet/ExpectedTokenCache.json")
    static let nodeFixture = InterchangeCommandTests.fixturePath("msal-node/cache.json")

    /// Runs the CLI in the test session, with a key file (so the import itself writes nothing to the keyring).
    static func run(_ cli: CLI, _ arguments: String..., environment: [String: String] = [:]) throws -> CLI.Result {
        let process = try ChildProcess(
            "tokencache", arguments,
            environment: cli.environment.merging(["DBUS_SESSION_BUS_ADDRESS": sessionBus ?? "", "TOKENCACHE_KEY": "file"]) { $1 }
                .merging(environment) { $1 })
        let (status, errors) = process.wait()
        return CLI.Result(status: status, output: process.output, errors: errors)
    }

    /// Stores `secret` as the SDK's libsecret call would: its attributes plus `xdg:schema`, its label,
    /// in the default collection.
    @discardableResult
    static func seed(_ layout: SDKKeyringLayout, label: String? = nil, secret: Data) throws -> String {
        let attributes = [("xdg:schema", layout.schema)] + layout.attributes.map { ($0.name, $0.value) }
        return try SecretServiceConnection(collection: "default", unlock: .fail)
            .store(label: label ?? layout.label, attributes: attributes, secret: secret, contentType: "text/plain")
    }

    /// Removes every item any layout's search finds.
    static func clean() throws {
        let lookup = try SecretServiceLookup()
        var paths: Set<String> = []
        for layout in SDKCacheLayout.allCases {
            for keyring in layout.keyringLayouts {
                for item in try lookup.search(keyring.searchAttributes.map { ($0.name, $0.value) }) { paths.insert(item.path) }
            }
        }
        let connection = try SecretServiceConnection(collection: "default", unlock: .fail)
        for path in paths.sorted() { try connection.delete(path) }
    }

    /// The layout's secrets, as a snapshot to compare after an import.
    static func snapshot(_ layout: SDKKeyringLayout) throws -> [String: Data] {
        let lookup = try SecretServiceLookup()
        return try lookup.secrets(of: try lookup.search(layout.searchAttributes.map { ($0.name, $0.value) }))
    }

    @Test(arguments: SDKCacheLayout.allCases)
    func eachLayoutsKeyringItemImportsTheFixturesAccounts(_ layout: SDKCacheLayout) throws {
        try Self.clean()
        defer { try? Self.clean() }
        let json = try Data(contentsOf: URL(fileURLWithPath: Self.dotnetFixture))
        let keyringLayout = layout.keyringLayouts[0]
        let secret = keyringLayout.encoding == .base64JSON ? Data(json.base64EncodedString().utf8) : json
        try Self.seed(keyringLayout, secret: secret)
        let before = try Self.snapshot(keyringLayout)

        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try Self.run(cli, "import", "sdk", "--from", "secret-service:\(layout)")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasPrefix("Imported 18 items from 1 SDK cache: 18 added, 0 replaced."), "\(result.output)")
        #expect(result.output.contains("  found secret-service:\(layout) [keyring item '\(keyringLayout.label)' in collection "))
        #expect(!result.output.contains("access_token_secret"))
        let accounts = try Self.run(cli, "accounts")
        #expect(accounts.status == 0)
        #expect(accounts.output.contains("joe@localhost.com (First Last)"))
        #expect(try Self.snapshot(keyringLayout) == before, "the keyring item is read, never changed")
    }

    @Test func gcmsAppCacheAndAnItemWrittenBySecretToolImportToo() throws {
        try Self.clean()
        defer { try? Self.clean() }
        let app = SDKCacheLayout.gcm.keyringLayouts[1]
        try Self.seed(app, secret: Data(try Data(contentsOf: URL(fileURLWithPath: Self.nodeFixture)).base64EncodedString().utf8))
        // Azure CLI's item written by another program than libsecret's own API: secret-tool.
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        tool.arguments = ["store", "--label=", "xdg:schema", "Microsoft Azure CLI", "type", "Token cache"]
        tool.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: Self.nodeFixture))
        try tool.run()
        tool.waitUntilExit()
        #expect(tool.terminationStatus == 0)

        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let gcm = try Self.run(cli, "import", "sdk", "--from", "secret-service:gcm")
        #expect(gcm.status == 0, "\(gcm.errors)")
        #expect(gcm.output.contains("found secret-service:gcm [keyring item 'AppCache' in collection"))
        #expect(gcm.output.contains("GitCredentialManager.MSAL=1.0.0.0]: 8 entries"))
        let azure = try Self.run(cli, "import", "sdk", "--from", "secret-service:azure-cli")
        #expect(azure.status == 0, "\(azure.errors)")
        #expect(azure.output.contains("0 added, 8 replaced"))
        #expect(try Self.run(cli, "accounts").output.contains("johndoe@microsoft.com"))
    }

    @Test func autoImportsKeyringItemsAndFilesInOneCommand() throws {
        try Self.clean()
        defer { try? Self.clean() }
        let dotnet = try Data(contentsOf: URL(fileURLWithPath: InterchangeCommandTests.fixturePath("msal-dotnet/MultiCloudTokenCache.json")))
        try Self.seed(SDKCacheLayout.msalDotnet.keyringLayouts[0], secret: Data(dotnet.base64EncodedString().utf8))
        try Self.seed(SDKCacheLayout.msalNode.keyringLayouts[0], secret: try Data(contentsOf: URL(fileURLWithPath: Self.nodeFixture)))

        let cli = try CLI()
        defer { cli.home.cleanUp() }
        // Azure CLI's plaintext file, the Linux default.
        try FileManager.default.createDirectory(atPath: cli.home.path(".azure"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.dotnetFixture, toPath: cli.home.path(".azure/msal_token_cache.json"))

        let listing = try Self.run(cli, "import", "sdk", "--list-sources")
        #expect(listing.status == 0, "\(listing.errors)")
        #expect(listing.output.contains("found    secret-service:msal-dotnet [keyring item 'msal.cache.nocae'"))
        #expect(listing.output.contains("(Base64-encoded MSAL JSON)"))
        #expect(listing.output.contains("found    secret-service:msal-node [keyring item 'Microsoft.Developer.IdentityService/MSALCache'"))
        #expect(listing.output.contains("found    file:azure-cli \(cli.home.path(".azure/msal_token_cache.json")) (MSAL JSON, 7022 bytes)"))
        #expect(listing.output.contains("missing  secret-service:azure-cli [Azure CLI: xdg:schema=Microsoft Azure CLI, type=Token cache]"))
        #expect(!FileManager.default.fileExists(atPath: cli.defaultStorePath), "listing opens no store")

        let result = try Self.run(cli, "import", "sdk", "--from", "auto")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasPrefix("Imported 39 items from 3 SDK caches: 39 added, 0 replaced."), "\(result.output)")
        #expect(result.output.contains("found secret-service:msal-dotnet"))
        #expect(result.output.contains("found secret-service:msal-node"))
        #expect(result.output.contains("found file:azure-cli \(cli.home.path(".azure/msal_token_cache.json")): 18 entries"))
        #expect(result.output.contains("not found: file:msal-dotnet, file:gcm, secret-service:azure-identity-python, file:azure-identity-python, secret-service:azure-cli, file:msal-node\n"))
        let accounts = try Self.run(cli, "accounts").output
        for user in ["joe@localhost.com", "johndoe@microsoft.com", "usercn@cloudcn.partner.onmschina.cn", "user@cloud.onmicrosoft.com"] {
            #expect(accounts.contains(user), "\(user)")
        }
    }

    @Test func aBlobThatDoesNotDecodeExits65NamingTheLayoutAndImportsNothing() throws {
        try Self.clean()
        defer { try? Self.clean() }
        try Self.seed(SDKCacheLayout.azureCLI.keyringLayouts[0], secret: try Data(contentsOf: URL(fileURLWithPath: Self.nodeFixture)))
        // Raw JSON where MSAL.NET stores Base64.
        try Self.seed(SDKCacheLayout.msalDotnet.keyringLayouts[0], secret: Data(#"{"RefreshToken": {"k": {"secret": "TOP-SECRET"}}}"#.utf8))

        let cli = try CLI()
        defer { cli.home.cleanUp() }
        for selection in ["secret-service:msal-dotnet", "auto"] {
            let result = try Self.run(cli, "import", "sdk", "--from", selection)
            #expect(result.status == 65, "\(result.output) \(result.errors)")
            #expect(result.errors.contains(
                "secret-service:msal-dotnet [keyring item 'msal.cache.nocae' in collection"))
            #expect(result.errors.contains("MsalClientID=Microsoft.Developer.IdentityService, Microsoft.Developer.IdentityService=1.0.0.0]: not Base64-encoded MSAL JSON"))
            #expect(!result.errors.contains("TOP-SECRET"))
        }
        let accounts = try Self.run(cli, "accounts")
        #expect(!accounts.output.contains("johndoe"), "auto imported nothing, not even the good Azure CLI item")
    }

    @Test func aLayoutWithNothingInTheKeyringExits1AndSaysWhereItLooked() throws {
        try Self.clean()
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try Self.run(cli, "import", "sdk", "--from", "secret-service:azure-identity-python")
        #expect(result.status == 1)
        #expect(result.errors.contains("no secret-service:azure-identity-python token cache found; looked in:"))
        #expect(result.errors.contains("secret-service:azure-identity-python [azure-identity (Python): xdg:schema=msal.cache.nocae, MsalClientID=Microsoft.Developer.IdentityService]"))
        #expect(result.errors.contains("xdg:schema=msal.cache.cae"))
        #expect(!FileManager.default.fileExists(atPath: cli.defaultStorePath), "no store is created for nothing")
    }
}

/// The file side of `import sdk --from`, and everything that needs no keyring.
@Suite("tokencache import sdk --from file, usage, no keyring")
struct SDKFileImportCommandTests {
    static let dotnetFixture = InterchangeCommandTests.fixturePath("msal-dotnet/ExpectedTokenCache.json")
    static let nodeFixture = InterchangeCommandTests.fixturePath("msal-node/cache.json")

    static func place(_ fixture: String, at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
    }

    @Test func azureCLIsPlaintextFileAtItsDefaultPlaceAndUnderAzureConfigDir() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let missing = try cli.run("import", "sdk", "--from", "file:azure-cli")
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no file:azure-cli token cache found; looked in:\n  file:azure-cli \(cli.home.path(".azure/msal_token_cache.json"))"))

        try Self.place(Self.nodeFixture, at: cli.home.path(".azure/msal_token_cache.json"))
        let result = try cli.run("import", "sdk", "--from", "file:azure-cli")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            Imported 8 items from 1 SDK cache: 8 added, 0 replaced.
              found file:azure-cli \(cli.home.path(".azure/msal_token_cache.json")): 8 entries

            """)
        #expect(try cli.run("accounts").output.contains("johndoe@microsoft.com"))

        try Self.place(Self.dotnetFixture, at: cli.home.path("az-config/msal_token_cache.json"))
        let configured = try cli.run("import", "sdk", "--from", "file:azure-cli", environment: ["AZURE_CONFIG_DIR": cli.home.path("az-config")])
        #expect(configured.status == 0, "\(configured.errors)")
        #expect(configured.output.contains("found file:azure-cli \(cli.home.path("az-config/msal_token_cache.json")): 18 entries"))
        #expect(try cli.run("accounts").output.contains("joe@localhost.com"))
    }

    @Test func dotnetGCMPythonAndNodeFilesAtTheirPlaces() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let data = cli.home.path("xdg-data")
        try Self.place(Self.dotnetFixture, at: data + "/.IdentityService/msal.cache.nocae")
        try Self.place(Self.nodeFixture, at: cli.home.path(".local/.IdentityService/msal.cache"))
        try Self.place(Self.nodeFixture, at: cli.home.path(".IdentityService/msal.cache.cae"))
        let dotnet = try cli.run("import", "sdk", "--from", "file:msal-dotnet", environment: ["XDG_DATA_HOME": data])
        #expect(dotnet.status == 0, "\(dotnet.errors)")
        #expect(dotnet.output.contains("found file:msal-dotnet \(data)/.IdentityService/msal.cache.nocae: 18 entries"))
        let gcm = try cli.run("import", "sdk", "--from", "file:gcm")
        #expect(gcm.output.contains("found file:gcm \(cli.home.path(".local/.IdentityService/msal.cache")): 8 entries"))
        for layout in ["azure-identity-python", "msal-node"] {
            let result = try cli.run("import", "sdk", "--from", "file:\(layout)")
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.contains("found file:\(layout) \(cli.home.path(".IdentityService/msal.cache.cae")): 8 entries"))
        }
        let accounts = try cli.run("accounts").output
        #expect(accounts.contains("johndoe@microsoft.com"))
        // XDG_DATA_HOME also moves tokencache's own default store.
        #expect(try cli.run("accounts", environment: ["XDG_DATA_HOME": data]).output.contains("joe@localhost.com"))
    }

    @Test func signalFilesAreNotCachesAndABrokenFileExits65() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let signal = cli.home.path(".local/share/.IdentityService/msal.cache.nocae")
        try FileManager.default.createDirectory(atPath: (signal as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: signal, contents: Data())
        let empty = try cli.run("import", "sdk", "--from", "file:msal-dotnet")
        #expect(empty.status == 1)
        #expect(empty.errors.contains("file:msal-dotnet \(signal) (empty: a signal file beside a keyring cache)"))

        // msal-node's signal file holds "{}": found, but an empty cache.
        let nodeSignal = cli.home.path(".IdentityService/msal.cache.nocae")
        try FileManager.default.createDirectory(atPath: (nodeSignal as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: nodeSignal))
        let braces = try cli.run("import", "sdk", "--from", "file:msal-node")
        #expect(braces.status == 1)
        #expect(braces.output.contains("found file:msal-node \(nodeSignal): an empty cache"))
        #expect(braces.errors.contains("the caches found are empty; nothing was imported"))

        let broken = cli.home.path(".azure/msal_token_cache.json")
        try FileManager.default.createDirectory(atPath: cli.home.path(".azure"), withIntermediateDirectories: true)
        let text = try String(contentsOfFile: Self.dotnetFixture, encoding: .utf8)
        try String(text.prefix(2000)).write(toFile: broken, atomically: true, encoding: .utf8)
        let result = try cli.run("import", "sdk", "--from", "file:azure-cli")
        #expect(result.status == 65)
        #expect(result.errors.contains("file:azure-cli \(broken): not valid JSON"))
        #expect(!result.errors.contains("access_token_secret"))
    }

    @Test func usageErrorsExit2() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        #expect(try cli.run("import").status == 2)
        #expect(try cli.run("import", "x.json", "--from", "auto").status == 2)
        #expect(try cli.run("import", "x.json", "--list-sources").status == 2)
        #expect(try cli.run("import", "sdk", "--from", "auto", "--format", "msal-json").status == 2)
        let bad = try cli.run("import", "sdk", "--from", "secret-service:msal-python")
        #expect(bad.status == 2)
        #expect(bad.errors.contains("secret-service:azure-identity-python"), "the accepted values are listed")
        #expect(try cli.run("import", "sdk", "--from", "keychain:gcm").status == 2)
    }

    @Test func withoutASessionBusTheKeyringIsUnavailableButAutoStillReadsFiles() throws {
        let cli = try CLI()  // its environment names no session bus
        defer { cli.home.cleanUp() }
        let keyring = try cli.run("import", "sdk", "--from", "secret-service:azure-cli")
        #expect(keyring.status == 74)
        #expect(keyring.errors.contains("tokencache: secret-service:azure-cli: no D-Bus session"))

        let nothing = try cli.run("import", "sdk", "--from", "auto")
        #expect(nothing.status == 1)
        #expect(nothing.errors.contains("note: the Secret Service was not searched: no D-Bus session"))
        let emptyListing = try cli.run("import", "sdk", "--list-sources")
        #expect(emptyListing.status == 0, "a listing that found nothing is a success")
        #expect(emptyListing.output.contains("missing  file:azure-cli"), "\(emptyListing.output)")

        try Self.place(Self.nodeFixture, at: cli.home.path(".azure/msal_token_cache.json"))
        let auto = try cli.run("import", "sdk", "--from", "auto")
        #expect(auto.status == 0, "\(auto.errors)")
        #expect(auto.output.hasPrefix("Imported 8 items from 1 SDK cache"))
        #expect(auto.errors.contains("note: the Secret Service was not searched"))
        let listing = try cli.run("import", "sdk", "--list-sources")
        #expect(listing.status == 0)
        #expect(listing.output.hasPrefix("secret-service: not searched: no D-Bus session"))
    }

    /// Runs `/bin/sh -c script` with no signal blocked or ignored, and waits for it. Children of the
    /// test process would otherwise inherit its blocked signals: gnome-keyring then misbehaves, and
    /// `dbus-run-session`'s SIGTERM cannot end the daemons of the session.
    static func shell(_ script: String, environment: [String: String]) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let words: [String] = ["/bin/sh", "-c", script]
        let pairs: [String] = environment.map { "\($0.key)=\($0.value)" }
        let arguments = words.map { strdup($0) } + [nil]
        let variables = pairs.map { strdup($0) } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawn(&pid, "/bin/sh", nil, &attributes, arguments, variables) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }

    /// A locked collection, in a keyring of its own: a private D-Bus session and gnome-keyring, whose
    /// login collection is locked after seeding (the shared test keyring must stay unlocked).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session") || ProcessInfo.processInfo.environment["CI"] == "true"))
    func aLockedCollectionIsATypedErrorAndNothingIsUnlockedOrImported() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        try FileManager.default.createDirectory(atPath: cli.home.path("data"), withIntermediateDirectories: true)
        let binary = ChildProcess.productsDirectory.appendingPathComponent("tokencache").path
        let log = cli.home.path("session.log")
        let script = """
            exec >"$LOG" 2>&1 </dev/null
            exec dbus-run-session -- sh -c '
                printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 90
                # Wait until the unlocked daemon owns the Secret Service name: a call before that
                # would have D-Bus activate a second, locked daemon that can only prompt.
                tries=0
                until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
                        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"; do
                    tries=$((tries + 1)); [ $tries -lt 300 ] || exit 89; sleep 0.1
                done
                tries=0  # the login collection appears a moment after the daemon starts
                until secret-tool store --label= xdg:schema "Microsoft Azure CLI" type "Token cache" < "$FIXTURE" 2>/dev/null; do
                    tries=$((tries + 1)); [ $tries -lt 100 ] || exit 91; sleep 0.1
                done
                dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \\
                    org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null || exit 92
                "$TOKENCACHE" import sdk --list-sources; echo "list=$?"
                "$TOKENCACHE" import sdk --from auto; echo "auto=$?"
                "$TOKENCACHE" import sdk --from secret-service:azure-cli; echo "explicit=$?"
                secret-tool search --all type "Token cache" 2>&1 | grep -c "^secret = "; echo "still-locked"'
            """
        let status = Self.shell(script, environment: cli.environment.merging([
            "XDG_DATA_HOME": cli.home.path("data"), "TOKENCACHE_KEY": "file", "LOG": log,
            "FIXTURE": Self.nodeFixture, "TOKENCACHE": binary,
        ]) { $1 })
        #expect(status == 0)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("found    secret-service:azure-cli [keyring item '' in collection 'Login'; xdg:schema=Microsoft Azure CLI, type=Token cache] (MSAL JSON; locked: unlock the collection to import it)"), "\(text)")
        #expect(text.contains("list=0"))
        #expect(text.contains("tokencache: the keyring collection 'Login' is locked, and it holds secret-service:azure-cli"))
        #expect(text.contains("tokencache never unlocks the keyring or prompts when importing"))
        #expect(text.contains("auto=74"))
        #expect(text.contains("explicit=74"))
        #expect(text.contains("0\nstill-locked"), "no secret became readable: nothing was unlocked")
        #expect(!text.contains("johndoe"))
        #expect(!FileManager.default.fileExists(atPath: cli.defaultStorePath), "nothing was imported")
    }
}
