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
            ["remove-account", "--wipe", "--client-id", Seeded.appA, "--account", Seeded.users[2].home],
        ] {
            let result = try cli.run(arguments: arguments + ["--store", "sqlite:" + path], environment: ["TOKENCACHE_KEY": "file"])
            #expect(result.status == 0, "\(arguments): \(result.errors)")
        }
        // MSAL ObjC's account metadata of app C: user 4 signed out, user 0 signed in without a
        // token of app C; and a malformed account record.
        var metadata = AccountMetadata(clientId: Seeded.appC)
        metadata.setSignInState(.signedOut, homeAccountId: Seeded.users[4].home)
        metadata.setSignInState(.signedIn, homeAccountId: Seeded.users[0].home)
        try Seeded.open(path).applyKeepingLookupKeys([
            .save(try metadata.storeItem(accessGroup: Seeded.group)),
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
        #expect(appC.contains(Seeded.users[0].home) && !appC.contains(Seeded.users[4].home), "app C's account metadata")
        #expect(try #require(answers[["accounts", "--json"]]).contains("\"id_token_claims\""))
    }
}
