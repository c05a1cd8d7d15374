import Foundation
import TestSupport
import Testing

/// `--store redis://…` through the CLI, against the servers `scripts/redis-servers.sh` started.
@Suite("tokencache: Redis store")
struct RedisCommandTests {
    static var specs: [String] {
        let environment = ProcessInfo.processInfo.environment
        let ci = environment["CI"] == "true"
        return ["TOKENCACHE_TEST_REDIS", "TOKENCACHE_TEST_REDIS_CLUSTER"].compactMap { environment[$0] ?? (ci ? "missing:\($0)" : nil) }
    }

    @Test(arguments: specs)
    func everyCommandWorksOnARedisStore(spec: String) throws {
        #expect(!spec.hasPrefix("missing:"), "run the tests through scripts/test.sh, which starts Redis")
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let store = spec + (spec.contains("?") ? "&" : "?") + "prefix=cli-\(UUID().uuidString)"
        let key = ["TOKENCACHE_REDIS_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()]
        let cache = cli.home.path("cache.json")
        try Data(#"""
            {"Account": {"uid.utid-login.microsoftonline.com-utid": {"home_account_id": "uid.utid",
              "environment": "login.microsoftonline.com", "realm": "utid", "local_account_id": "uid",
              "username": "user@contoso.com", "authority_type": "MSSTS"}},
             "RefreshToken": {"uid.utid-login.microsoftonline.com-refreshtoken-client--": {"home_account_id": "uid.utid",
              "environment": "login.microsoftonline.com", "credential_type": "RefreshToken", "client_id": "client",
              "secret": "RT-SECRET-VALUE"}}}
            """#.utf8).write(to: URL(fileURLWithPath: cache))
        let imported = try cli.run("import", "--store", store, cache, environment: key)
        #expect(imported.status == 0, "\(imported.errors)")
        let accounts = try cli.run("accounts", "--store", store, environment: key)
        #expect(accounts.status == 0, "\(accounts.errors)")
        #expect(accounts.output.contains("user@contoso.com"))
        let lookup = try cli.run("lookup", "refresh-token", "--store", store, "--client-id", "client", "--account", "uid.utid", environment: key)
        #expect(lookup.status == 0, "\(lookup.errors)")
        let dump = try cli.run("dump", "--store", store, environment: key)
        #expect(dump.status == 0 && dump.output.contains("refreshtoken-client--"))
        let doctor = try cli.run("doctor", "--store", store, environment: key)
        #expect(doctor.status == 0, "\(doctor.output)")
        #expect(doctor.output.contains("hiredis 0.14") && doctor.output.contains("tracking"))
        let removed = try cli.run("remove-account", "--store", store, "--account", "uid.utid", "--client-id", "client", environment: key)
        #expect(removed.status == 0, "\(removed.errors)")
        // Without the key the store does not open, and says which variable is missing.
        let keyless = try cli.run("accounts", "--store", store)
        #expect(keyless.status != 0 && keyless.errors.contains("TOKENCACHE_REDIS_KEY"))
    }

    @Test func anUnreachableServerIsAnIOErrorNamingIt() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try cli.run("accounts", "--store", "redis://127.0.0.1:1?key=none&connect_timeout=300")
        #expect(result.status == 74)
        #expect(result.errors.contains("127.0.0.1:1"))
    }
}
