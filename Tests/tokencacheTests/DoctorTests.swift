import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

@Suite("tokencache doctor")
struct DoctorTests {
    @Test func outsideAnyDBusSessionTheSecretServiceStoreIsUnusableAndTheSessionIsNamed() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        // CLI runs with a minimal environment: no DBUS_SESSION_BUS_ADDRESS, no XDG_RUNTIME_DIR.
        let result = try cli.run("doctor", "--store", "secret-service")
        #expect(result.status == 74)
        #expect(result.output.contains("D-Bus session: missing"))
        #expect(result.output.contains("no D-Bus session"))
        #expect(result.output.contains("dbus-run-session"))
        #expect(result.output.contains("NOT usable"))
    }

    @Test func aSessionAddressPointingNowhereIsNamed() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try cli.run("doctor", "--store", "secret-service",
                                 environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(cli.home.path("no-bus"))"])
        #expect(result.status == 74)
        #expect(result.output.contains("cannot connect to the D-Bus session bus at unix:path=\(cli.home.path("no-bus"))"))
    }

    @Test func requiringTheSecretServiceForKeysOutsideASessionExits74() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try cli.run("doctor", environment: ["TOKENCACHE_KEY": "secret-service"])
        #expect(result.status == 74)
        #expect(result.output.contains("no D-Bus session"))
        let dump = try cli.run("dump", environment: ["TOKENCACHE_KEY": "secret-service"])
        #expect(dump.status == 74, "the store is not opened with a silent fallback")
        #expect(dump.errors.contains("no D-Bus session"))
        #expect(!FileManager.default.fileExists(atPath: cli.defaultStorePath + ".key"))
    }

    @Test func theDefaultStoreFallsBackToAKeyFileWithOneNoticeAndDoctorSaysSo() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let fresh = try cli.run("doctor")
        #expect(fresh.status == 0, "\(fresh.output)")
        #expect(fresh.output.contains("does not exist yet"))
        #expect(!FileManager.default.fileExists(atPath: cli.defaultStorePath), "doctor creates nothing")

        let first = try cli.run("dump")
        #expect(first.status == 0)
        #expect(first.errors.contains("tokencache: note: no Secret Service is reachable"))
        #expect(try posixMode(cli.defaultStorePath + ".key") == 0o600)
        let second = try cli.run("dump")
        #expect(second.errors.isEmpty, "the notice is shown once")

        let report = try cli.run("doctor")
        #expect(report.status == 0)
        #expect(report.output.contains("key source: key file \(cli.defaultStorePath).key"))
        #expect(report.output.contains("schema version: 3"))
        #expect(report.output.contains("integrity check: ok"))
        #expect(report.output.contains("store file: \(cli.defaultStorePath): owner uid \(geteuid()), mode 600"))
        #expect(report.output.contains("found in key file"))

        let json = try cli.run("doctor", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["usable"] as? Bool == true)
    }

    @Test func aStoreWhoseKeyIsMissingIsUnusableAndNothingIsLost() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = cli.home.path("c.sqlite")
        try FileManager.default.createDirectory(atPath: cli.home.path(""), withIntermediateDirectories: true)
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["com.microsoft.adalcache"]))
        try store.save(StoreItem(accessGroup: "com.microsoft.adalcache", account: "a", service: "s", data: Data("PLAIN-SECRET".utf8)))
        #expect(try cli.run("dump", "--store", "sqlite:\(path)").status == 0)  // seals it with a new key file
        try FileManager.default.moveItem(atPath: path + ".key", toPath: path + ".key.saved")

        let report = try cli.run("doctor", "--store", "sqlite:\(path)")
        #expect(report.status == 74)
        #expect(report.output.contains("restore the key file"))
        let dump = try cli.run("dump", "--store", "sqlite:\(path)")
        #expect(dump.status == 74)
        #expect(dump.errors.contains("sealed with data key"))
        #expect(!dump.output.contains("PLAIN-SECRET"))

        try FileManager.default.moveItem(atPath: path + ".key.saved", toPath: path + ".key")
        let restored = try cli.run("dump", "--json", "--reveal-secrets", "--store", "sqlite:\(path)")
        #expect(restored.status == 0)
        #expect(restored.output.contains(Data("PLAIN-SECRET".utf8).base64EncodedString()))
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil || ProcessInfo.processInfo.environment["CI"] == "true"))
    func insideTheTestSessionTheSecretServiceStoreIsUsable() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let bus = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""
        let result = try cli.run("doctor", "--store", "secret-service:session", "--access-group", "doctor-\(UUID().uuidString)",
                                 environment: ["DBUS_SESSION_BUS_ADDRESS": bus])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Secret Service: reachable; default collection"))
        #expect(result.output.contains("unlocked"))
    }
}
