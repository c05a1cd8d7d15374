import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// `accounts`, `lookup` and `remove-account` against a store seeded through the library, as an app
/// would have written it.
@Suite("tokencache: accounts, lookup, remove-account")
struct CacheCommandTests {
    static let client = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let otherClient = "d3590ed6-52b3-4102-aeff-aad2292ab01c"
    static let home = "9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca"

    let cli: CLI
    let path: String

    init() throws {
        cli = try CLI()
        path = cli.defaultStorePath
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["com.microsoft.adalcache"]))
        let cache = try TokenCache(store: store)
        let authority = try Authority("https://login.microsoftonline.com/organizations")
        for (client, secret) in [(Self.client, "AT-SECRET-ONE"), (Self.otherClient, "AT-SECRET-TWO")] {
            try cache.save(
                Self.response(accessToken: secret, refreshToken: "RT-\(secret)"),
                for: TokenRequest(authority: authority, clientId: client, scopes: ["User.Read"]))
        }
    }

    static func base64URL(_ object: JSONObject) -> String { Base64URL.encode(JSONValue.object(object).serialized()) }

    static func response(accessToken: String, refreshToken: String) -> TokenResponse {
        TokenResponse(
            accessToken: accessToken, refreshToken: refreshToken,
            idToken: base64URL(["alg": "none"]) + "." + base64URL([
                "tid": "f645ad92-e38d-4d1a-b510-d1b09a74a8ca", "oid": "9f4880d8-80ba-4c40-97bc-f7a23c703084",
                "preferred_username": "IDLab@msidlab4.onmicrosoft.com", "name": "Cloud IDLAB Basic User",
            ]) + ".",
            clientInfo: base64URL(["uid": "9f4880d8-80ba-4c40-97bc-f7a23c703084", "utid": "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"]),
            scope: "User.Read Mail.Read openid profile", expiresIn: 3600, familyId: "1")
    }

    @Test func accountsListsTheAccountWithItsTenantProfile() throws {
        defer { cli.home.cleanUp() }
        let human = try cli.run("accounts")
        #expect(human.status == 0, "\(human.errors)")
        #expect(human.output.contains("IDLab@msidlab4.onmicrosoft.com (Cloud IDLAB Basic User)"))
        #expect(human.output.contains(Self.home))
        #expect(human.output.contains("tenant f645ad92-e38d-4d1a-b510-d1b09a74a8ca (home)"))

        let json = try cli.run("accounts", "--json", "--username", "idlab@MSIDLAB4.onmicrosoft.com")
        #expect(json.status == 0)
        let value = try JSONValue.parse(Data(json.output.utf8))
        guard case .array(let accounts) = value, let first = accounts.first?.objectValue else {
            Issue.record("not an array of objects: \(json.output)")
            return
        }
        #expect(accounts.count == 1)
        #expect(first["home_account_id"]?.stringValue == Self.home)
        #expect(first["environment"]?.stringValue == "login.windows.net")
        #expect(!json.output.contains("AT-SECRET"))
        #expect(!json.output.contains("RT-AT-SECRET"))
    }

    @Test func missingAccountsExitOne() throws {
        defer { cli.home.cleanUp() }
        #expect(try cli.run("accounts", "--username", "nobody@contoso.com").status == 1)
        #expect(try cli.run("accounts", "--identifier", "no.body").status == 1)
        let unknownApp = try cli.run("accounts", "--client-id", "00000000-0000-0000-0000-000000000001")
        #expect(unknownApp.status == 0, "a listing with no result is not an error")
    }

    @Test func accessTokenLookupHidesTheSecretUnlessRevealed() throws {
        defer { cli.home.cleanUp() }
        let human = try cli.run("lookup", "access-token", "--client-id", Self.client, "--account", Self.home,
                                "--scopes", "mail.read", "--realm", "common")
        #expect(human.status == 0, "\(human.errors)")
        #expect(human.output.contains("AccessToken for \(Self.home) on login.windows.net"))
        #expect(!human.output.contains("AT-SECRET-ONE"))
        #expect(human.output.contains("13 characters (hidden"))

        let redacted = try cli.run("lookup", "access-token", "--client-id", Self.client, "--account", Self.home,
                                   "--scopes", "User.Read", "--environment", "login.microsoft.com", "--json")
        #expect(redacted.status == 0)
        #expect(!redacted.output.contains("AT-SECRET-ONE"))
        #expect(try JSONValue.parse(Data(redacted.output.utf8)).objectValue?["secret"]?.stringValue == "<redacted: 13 chars>")

        let json = try cli.run("lookup", "access-token", "--client-id", Self.client, "--account", Self.home,
                               "--scopes", "User.Read", "--environment", "login.microsoft.com", "--json", "--reveal-secrets")
        #expect(json.status == 0)
        let object = try #require(try JSONValue.parse(Data(json.output.utf8)).objectValue)
        #expect(object["secret"]?.stringValue == "AT-SECRET-ONE")
        #expect(object["credential_type"]?.stringValue == "AccessToken")
        #expect(object["expires_on"]?.stringValue != nil, "timestamps are strings")

        let miss = try cli.run("lookup", "access-token", "--client-id", Self.client, "--account", Self.home,
                               "--scopes", "Files.Read")
        #expect(miss.status == 1)
        #expect(miss.output.isEmpty)
    }

    @Test func refreshTokenLookupByAccountUsernameAndFamily() throws {
        defer { cli.home.cleanUp() }
        let own = try cli.run("lookup", "refresh-token", "--client-id", Self.client, "--username", "IDLAB@msidlab4.onmicrosoft.com", "--json", "--reveal-secrets")
        #expect(own.status == 0, "\(own.errors)")
        #expect(try JSONValue.parse(Data(own.output.utf8)).objectValue?["secret"]?.stringValue == "RT-AT-SECRET-ONE")

        let family = try cli.run("lookup", "refresh-token", "--client-id", Self.client, "--account", Self.home, "--family-id", "1")
        #expect(family.status == 0)
        #expect(family.output.contains("family id:  1"))
        #expect(family.output.contains("refreshtoken-1--"))
        #expect(!family.output.contains("RT-AT-SECRET"))

        #expect(try cli.run("lookup", "refresh-token", "--client-id", Self.client).status == 2, "needs --account or --username")
    }

    @Test func removeAccountSignsOutOneAppAndKeepsTheOthersTokens() throws {
        defer { cli.home.cleanUp() }
        let removed = try cli.run("remove-account", "--client-id", Self.client, "--account", Self.home)
        #expect(removed.status == 0, "\(removed.errors)")
        #expect(removed.output.hasPrefix("Signed \(Self.home) out of \(Self.client): deleted "), "\(removed.output)")
        #expect(removed.output.contains("access token") && removed.output.contains("refresh token"), "\(removed.output)")
        #expect(removed.output.contains("marked signed out for \(Self.client)"), "\(removed.output)")
        #expect(try cli.run("accounts", "--client-id", Self.client, "--identifier", Self.home).status == 1)
        #expect(try cli.run("accounts", "--client-id", Self.otherClient, "--identifier", Self.home).status == 0)
        #expect(try cli.run("lookup", "refresh-token", "--client-id", Self.otherClient, "--account", Self.home).status == 0)
        #expect(try cli.run("lookup", "access-token", "--client-id", Self.client, "--account", Self.home, "--scopes", "User.Read").status == 1)

        let wiped = try cli.run("remove-account", "--client-id", Self.otherClient, "--account", Self.home, "--wipe")
        #expect(wiped.status == 0)
        #expect(wiped.output.hasPrefix("Removed \(Self.home) from every app: deleted "), "\(wiped.output)")
        #expect(wiped.output.contains("account record"), "\(wiped.output)")
        #expect(try cli.run("accounts", "--identifier", Self.home).status == 1)
    }
}
