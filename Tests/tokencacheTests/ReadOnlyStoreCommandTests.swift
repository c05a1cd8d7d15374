import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

/// A store on a read-only file system (a read-only bind mount in a user and mount namespace of its
/// own, `unshare -r -m`) is opened for reading: listings, dumps and lookups work, a write fails with
/// the permission status and says what to do.
/// Whether this machine lets an unprivileged process bind-mount in namespaces of its own.
let readOnlyMountsWork: Bool = {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    probe.arguments = ["-r", "-m", "sh", "-c", #"mount --bind -o ro "$0" "$0" && ! touch "$0/probe" 2>/dev/null"#, FileManager.default.temporaryDirectory.path]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}()

@Suite(.enabled(if: readOnlyMountsWork, "needs `unshare -r -m` (user and mount namespaces)"))
struct ReadOnlyStoreCommandTests {
    /// Runs the CLI with `directory` bind-mounted read-only onto itself.
    static func runReadOnly(_ cli: CLI, directory: String, _ arguments: String...) throws -> CLI.Result {
        try runWrapped(cli, "/usr/bin/unshare", ["-r", "-m", "sh", "-c", #"mount --bind -o ro "$0" "$0" && exec "$@""#, directory], arguments)
    }

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
    }

    @Test func readsWorkAndWritesSayTheFileSystemIsReadOnly() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let directory = cli.home.path("media")
        let store = "sqlite:" + directory + "/store.sqlite"
        let fixture = InterchangeCommandTests.fixturePath("msal-dotnet/ExpectedTokenCache.json")
        let imported = try cli.run("import", fixture, "--store", store, environment: ["TOKENCACHE_KEY": "file"])
        #expect(imported.status == 0, "\(imported.errors)")

        let accounts = try Self.runReadOnly(cli, directory: directory, "accounts", "--store", store)
        #expect(accounts.status == 0, "\(accounts.errors)")
        #expect(accounts.output.contains("joe@localhost.com"))
        let dump = try Self.runReadOnly(cli, directory: directory, "dump", "--store", store)
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(dump.output.contains("refreshtoken"))

        let write = try Self.runReadOnly(cli, directory: directory, "import", fixture, "--store", store)
        #expect(write.status == 74)
        #expect(write.errors.contains("is mounted read-only"), "\(write.errors)")
        #expect(write.errors.contains("remount that file system read-write, or copy"), "\(write.errors)")
        // The same store, writable again, takes the write.
        #expect(try cli.run("import", fixture, "--store", store, environment: ["TOKENCACHE_KEY": "file"]).status == 0)
    }

    @Test func commitsStillInTheLogAreRead() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let directory = cli.home.path("media")
        let path = directory + "/store.sqlite"
        // This process keeps the store open, so its commit stays in the log (with its -shm index).
        let writer = try SQLiteStore(path: path, accessGroups: AccessGroups(["com.microsoft.adalcache"]))
        try writer.save(StoreItem(
            accessGroup: "com.microsoft.adalcache", account: "in-the-log", service: "s", type: 2002, data: Data(#"{"secret":"x"}"#.utf8)))
        #expect(Self.size(path + "-wal") > 0)
        let dump = try Self.runReadOnly(cli, directory: directory, "dump", "--store", "sqlite:" + path)
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(dump.output.contains("in-the-log"))

        // Without the -shm index, which a read-only file system cannot get, the log cannot be read.
        let copy = cli.home.path("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + "/store.sqlite" + suffix) }
        let noIndex = try Self.runReadOnly(cli, directory: copy, "dump", "--store", "sqlite:" + copy + "/store.sqlite")
        #expect(noIndex.status == 74)
        #expect(noIndex.errors.contains("copy the store (with its -wal file, if any) to writable storage"), "\(noIndex.errors)")
        _ = writer
    }
}

/// Runs the built CLI with `arguments` through `wrapper` (which runs the binary it is given after
/// `prefix`), in the CLI's environment with a key file.
func runWrapped(_ cli: CLI, _ wrapper: String, _ prefix: [String], _ arguments: [String]) throws -> CLI.Result {
    let binary = ChildProcess.productsDirectory.appendingPathComponent("tokencache").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: wrapper)
    process.arguments = prefix + [binary] + arguments
    process.environment = cli.environment.merging(["TOKENCACHE_KEY": "file"]) { $1 }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let errorText = errors.fileHandleForReading.readDataToEndOfFile()
    let outputText = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CLI.Result(
        status: process.terminationStatus, output: String(decoding: outputText, as: UTF8.self), errors: String(decoding: errorText, as: UTF8.self))
}

/// Whether the tests run as root with `setpriv`, so that a command can run as another user (65534)
/// whose permissions are then real: root itself may write any file.
let canRunAsAnotherUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

/// A store whose file, or whose directory, its user cannot write is opened for reading.
@Suite(.enabled(if: canRunAsAnotherUser, "needs root and setpriv, to run a command as user 65534"))
struct UnwritableStoreCommandTests {
    static let user: UInt32 = 65534

    /// Runs the CLI as user 65534 with a HOME of its own.
    static func runAsUser(_ cli: CLI, _ arguments: String...) throws -> CLI.Result {
        try runWrapped(cli, "/usr/bin/setpriv", ["--reuid=\(user)", "--regid=\(user)", "--clear-groups"], arguments)
    }

    /// A home owned by the user, holding `store/store.sqlite` with one item, closed (no log left).
    static func prepare(_ cli: CLI) throws -> String {
        let path = cli.home.path("store/store.sqlite")
        do {
            let store = try SQLiteStore(path: path, accessGroups: AccessGroups(["com.microsoft.adalcache"]))
            try store.save(StoreItem(
                accessGroup: "com.microsoft.adalcache", account: "readable", service: "s", type: 2002, data: Data(#"{"secret":"x"}"#.utf8)))
        }
        for entry in [cli.home.url.path, cli.home.path("store"), path] { #expect(chown(entry, user, user) == 0) }
        return path
    }

    @Test(arguments: [(file: 0o400, directory: 0o700), (file: 0o600, directory: 0o500)])
    func readsWorkAndWritesSayWhy(_ modes: (file: Int, directory: Int)) throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = try Self.prepare(cli)
        #expect(chmod(path, mode_t(modes.file)) == 0)
        #expect(chmod(cli.home.path("store"), mode_t(modes.directory)) == 0)
        let dump = try Self.runAsUser(cli, "dump", "--store", "sqlite:" + path)
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(dump.output.contains("readable"))
        let write = try Self.runAsUser(cli, "import", InterchangeCommandTests.fixturePath("msal-dotnet/ExpectedTokenCache.json"), "--store", "sqlite:" + path)
        #expect(write.status == 74)
        #expect(write.errors.contains("is not writable by this user"), "\(write.errors)")
        #expect(write.errors.contains("chmod u+w"), "\(write.errors)")
    }
}
