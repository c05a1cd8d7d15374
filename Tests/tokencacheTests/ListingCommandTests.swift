import CacheStore
import Foundation
import TestSupport
import TokenCacheSchema
import Testing

/// `tokencache accounts` without `--username`/`--identifier` reads only the kinds of item a
/// listing looks at (account records, ID tokens, legacy entries; for `--client-id` also what says
/// who is signed in to the app); `--whole-store` reads everything first. Both print the same, byte
/// for byte, on the targeted commands' store (several apps and clouds, a username two accounts
/// share, legacy ADAL entries) with accounts signed out of an app, a wiped account, MSAL ObjC's
/// account metadata, a malformed record and a damaged row.
@Suite("tokencache: the accounts listing answers from the kinds it shows as from the whole store")
struct ListingCommandTests {
    typealias Seeded = TargetedCommandTests

    static func seed(_ cli: CLI, _ path: String) throws {
        try Seeded.seed(path, now: Date())
        for arguments in [
            ["remove-account", "--client-id", Seeded.appA, "--account", Seeded.users[1].home],
            ["remove-account", "--client-id", Seeded.appB, "--account", Seeded.users[0].home, "--whole-store"],
            ["remove-account", "--wipe", "--client-id", Seeded.appA, "--account", Seeded.users[5].home],
        ] {
            let result = try cli.run(arguments: arguments + ["--store", "sqlite:" + path], environment: ["TOKENCACHE_KEY": "file"])
            #expect(result.status == 0, "\(arguments): \(result.errors)")
        }
        // MSAL ObjC's account metadata: user 0 signed in to app C without a token of it, user 2
        // signed out of app B, which its family token would sign it in to (neither has an item of
        // its own for the app); and a malformed account record.
        var appC = AccountMetadata(clientId: Seeded.appC)
        appC.setSignInState(.signedIn, homeAccountId: Seeded.users[0].home)
        var appB = AccountMetadata(clientId: Seeded.appB)
        appB.setSignInState(.signedOut, homeAccountId: Seeded.users[2].home)
        try Seeded.open(path).applyKeepingLookupKeys([
            .save(try appC.storeItem(accessGroup: Seeded.group)),
            .save(try appB.storeItem(accessGroup: Seeded.group)),
            .save(StoreItem(
                accessGroup: Seeded.group, account: "broken.utid-login.microsoftonline.com", service: "utid", type: 1003,
                data: Data("{\"home_account_id\": 7".utf8))),
        ])
        // One flipped byte in user 3's account record: a damaged row every read skips.
        try rawSQL(path, """
            UPDATE items SET data = substr(data, 1, 30) || CASE WHEN substr(data, 31, 1) = X'00' THEN X'01' ELSE X'00' END || substr(data, 32)
            WHERE account LIKE '\(Seeded.users[3].uid)%' AND type = 1003;
            """)
    }

    static var questions: [[String]] {
        var questions: [[String]] = [["accounts"], ["accounts", "--json"]]
        for environment in ["login.windows.net", "login.microsoftonline.us", "login.chinacloudapi.cn", "contoso.b2clogin.com"] {
            questions.append(["accounts", "--environment", environment])
        }
        for client in Seeded.clients + ["11111111-2222-4333-8444-555555555555"] {
            questions.append(["accounts", "--client-id", client])
            questions.append(["accounts", "--client-id", client, "--json"])
            questions.append(["accounts", "--client-id", client, "--environment", "login.windows.net"])
        }
        return questions
    }

    @Test func everyListingIsPrintedAsFromTheWholeStore() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = cli.home.path("cache.sqlite")
        try Self.seed(cli, path)
        #expect(try Seeded.open(path).allItems().contains { $0.type == ItemTypeCode.accountMetadata }, "not filed yet")
        var answers: [[String]: String] = [:]
        for question in Self.questions {
            // The listing first: a whole-store open files the account metadata per account.
            let arguments = question + ["--store", "sqlite:" + path]
            let listed = try Seeded.answer(cli, arguments)
            let whole = try Seeded.answer(cli, arguments + ["--whole-store"])
            #expect(listed == whole, "\(question.joined(separator: " "))")
            answers[question] = listed
        }
        // What the store holds is listed, and what it hides is not.
        let all = try #require(answers[["accounts"]])
        #expect(all.hasPrefix("status 0\n"))
        for shown in ["user0@contoso.com", Seeded.adalUser, "(no username)"] {
            #expect(all.contains(shown), "\(shown)")
        }
        #expect(!all.contains("USER0@contoso.com"), "user 3's only record is damaged")
        let appA = try #require(answers[["accounts", "--client-id", Seeded.appA]])
        #expect(appA.contains(Seeded.users[0].home) && !appA.contains(Seeded.users[1].home), "user 1 signed out of app A")
        let appC = try #require(answers[["accounts", "--client-id", Seeded.appC]])
        #expect(appC.contains(Seeded.users[0].home), "signed in to app C by its account metadata")
        let appB = try #require(answers[["accounts", "--client-id", Seeded.appB]])
        #expect(all.contains(Seeded.users[2].home) && !appB.contains(Seeded.users[2].home), "signed out of app B by its account metadata")
        #expect(try #require(answers[["accounts", "--json"]]).contains("\"id_token_claims\""))
    }

    /// Redis and the Secret Service cannot select items by type: the listing reads them whole, and
    /// answers as `--whole-store` does. The same items, exported from the seeded SQLite store.
    @Test(arguments: RedisCommandTests.specs + (keyringForImports ? ["secret-service:session"] : []))
    func storesThatCannotSelectByTypeListAsFromTheWholeStore(spec: String) throws {
        #expect(!spec.hasPrefix("missing:"), "run the tests through scripts/test.sh, which starts Redis")
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = cli.home.path("cache.sqlite")
        try Self.seed(cli, path)
        let file = cli.home.path("items.json")
        let exported = try cli.run("export", "--format", "keychain-items", "-o", file, "--store", "sqlite:" + path, environment: ["TOKENCACHE_KEY": "file"])
        #expect(exported.status == 0, "\(exported.errors)")
        // A group of its own (Secret Service: one login keyring for every test), a prefix of its own (Redis).
        let group = "listing-\(UUID().uuidString)"
        let items = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: Seeded.group, with: group)
        try items.write(toFile: file, atomically: true, encoding: .utf8)
        let store = spec.hasPrefix("redis") ? spec + (spec.contains("?") ? "&" : "?") + "prefix=\(group)" : spec
        var environment = ["TOKENCACHE_REDIS_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()]
        if let sessionBus { environment["DBUS_SESSION_BUS_ADDRESS"] = sessionBus }
        let flags = ["--store", store, "--access-group", group]
        let imported = try cli.run(arguments: ["import", file] + flags, environment: environment)
        #expect(imported.status == 0, "\(imported.errors)")
        for question in [["accounts"], ["accounts", "--json"], ["accounts", "--client-id", Seeded.appB], ["accounts", "--environment", "login.windows.net"]] {
            let listed = try cli.run(arguments: question + flags, environment: environment)
            let whole = try cli.run(arguments: question + flags + ["--whole-store"], environment: environment)
            #expect(listed.status == 0 && listed.output.contains("home"), "\(question): \(listed.errors)")
            #expect("\(listed.status)\n\(listed.output)\(listed.errors)" == "\(whole.status)\n\(whole.output)\(whole.errors)", "\(question)")
        }
    }
}
