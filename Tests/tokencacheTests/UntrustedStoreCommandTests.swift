import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The CLI over a store someone else damaged or planted: one damaged row never takes the store
/// down, and a file that is not the user's is refused.
@Suite("tokencache: damaged rows and planted files")
struct UntrustedStoreCommandTests {
    static let environment = ["TOKENCACHE_KEY": "file"]
    static let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"

    /// A store with three imported users (`user-0` … `user-2`).
    static func seeded() throws -> (CLI, String) {
        let cli = try CLI()
        let file = cli.home.path("cache.json")
        try ConcurrentFirstUseTests.msalCache(prefix: "user", accounts: 3).write(to: URL(fileURLWithPath: file))
        let store = "sqlite:" + cli.home.path("store/cache.sqlite")
        let result = try cli.run("import", file, "--store", store, environment: environment)
        #expect(result.status == 0, "\(result.errors)")
        return (cli, store)
    }

    @Test("one flipped byte in one user's row: every command still works for everyone else; repair removes it")
    func flippedByte() throws {
        let (cli, store) = try Self.seeded()
        defer { cli.home.cleanUp() }
        let path = String(store.dropFirst("sqlite:".count))
        try rawSQL(path, """
            UPDATE items SET data = substr(data, 1, 30) || CASE WHEN substr(data, 31, 1) = X'00' THEN X'01' ELSE X'00' END || substr(data, 32)
            WHERE account LIKE 'user-1.%' AND service LIKE 'refreshtoken-%';
            """)
        func run(_ arguments: String...) throws -> CLI.Result {
            try cli.run(arguments: arguments + ["--store", store], environment: Self.environment)
        }
        for command in [["accounts"], ["dump"], ["dump", "--json"], ["export", "--output", cli.home.path("out.json")]] {
            let result = try cli.run(arguments: command + ["--store", store], environment: Self.environment)
            #expect(result.status == 0, "\(command): \(result.errors)")
        }
        let lookup = try run("lookup", "refresh-token", "--client-id", "client", "--account", "user-0.\(Self.tenant)")
        #expect(lookup.status == 0, "\(lookup.errors)")
        let listed = try run("repair", "--dry-run")
        #expect(listed.status == 0)
        #expect(listed.output.hasPrefix("1 damaged item:"))
        #expect(listed.output.contains("user-1.") && !listed.output.contains("rt-1"), "identity, never payload")
        let doctor = try run("doctor")
        #expect(doctor.status == 0, "damage is a warning: the rest of the store serves")
        #expect(doctor.output.contains("damaged items: 1 item that reads skip") && doctor.output.contains("user-1."), "\(doctor.output)")
        #expect(doctor.output.contains("store file: ") && doctor.output.contains("mode 600"))
        let repaired = try run("repair")
        #expect(repaired.status == 0)
        #expect(repaired.output == "Removed 1 damaged item.\nPruned 0 records of removed partitions and 0 lookup keys.\n")
        #expect(try run("repair", "--dry-run").output.hasPrefix("0 damaged items."))
    }

    @Test("repair prunes the records of partitions left without items, once; the store serves on")
    func repairPrunesRemovedPartitions() throws {
        let (cli, store) = try Self.seeded()
        defer { cli.home.cleanUp() }
        func run(_ arguments: String...) throws -> CLI.Result {
            try cli.run(arguments: arguments + ["--store", store], environment: Self.environment)
        }
        let path = String(store.dropFirst("sqlite:".count))
        let wiped = try run("remove-account", "--wipe", "--client-id", "client", "--account", "user-2.\(Self.tenant)")
        #expect(wiped.status == 0, "\(wiped.errors)")
        // The wipe keeps user-2's sign-in state for the app (a signed-out type 9001 item in its
        // partition); removing that too, as another library or an expiry could, empties the partition.
        #expect(try rawInteger(path, "SELECT count(*) FROM items WHERE account LIKE 'user-2.%' AND type = 9001") >= 1)
        try rawSQL(path, "DELETE FROM items WHERE account LIKE 'user-2.%'")
        let rows = try rawInteger(path, "SELECT count(*) FROM partitions")
        let empty = try rawInteger(path, "SELECT count(*) FROM partitions p WHERE NOT EXISTS "
            + "(SELECT 1 FROM items i WHERE i.access_group = p.access_group AND i.account = p.account)")
        #expect(empty >= 1, "user-2's partitions are empty")
        let repaired = try run("repair")
        #expect(repaired.status == 0, "\(repaired.errors)")
        #expect(repaired.output.hasPrefix("Removed 0 damaged items.\nPruned \(empty) record"), "\(repaired.output)")
        #expect(try rawInteger(path, "SELECT count(*) FROM partitions") == rows - empty)
        #expect(try run("repair").output.hasSuffix("Pruned 0 records of removed partitions and 0 lookup keys.\n"))
        let accounts = try run("accounts")
        #expect(accounts.status == 0 && accounts.output.contains("user-0.") && !accounts.output.contains("user-2."), "\(accounts.output)")
    }

    @Test("a store file another user owns is refused with exit 74, saying what is wrong and how to fix it",
          .enabled(if: geteuid() == 0, "needs root to give a file away"))
    func plantedStore() throws {
        let (cli, store) = try Self.seeded()
        defer { cli.home.cleanUp() }
        let path = String(store.dropFirst("sqlite:".count))
        #expect(chown(path, 4242, 4242) == 0)
        let result = try cli.run("accounts", "--store", store, environment: Self.environment)
        #expect(result.status == 74)
        #expect(result.errors.contains("refusing to use \(path)"))
        #expect(result.errors.contains("belongs to user id 4242"))
    }
}
