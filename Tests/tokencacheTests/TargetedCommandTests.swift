import CacheStore
import CacheStoreLocation
import Foundation
import TestSupport
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// The commands that ask about one account (`lookup`, `accounts --username/--identifier`,
/// `remove-account`) read only the partitions they need; `--whole-store` reads everything first.
/// Both must answer alike, byte for byte, on a store with several accounts, apps, clouds, tenants
/// and legacy ADAL entries — found and not found — and a removal must leave the same store.
@Suite("tokencache: targeted commands answer from partitions as from the whole store")
struct TargetedCommandTests {
    static let group = "com.microsoft.adalcache"
    static let appA = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let appB = "d3590ed6-52b3-4102-aeff-aad2292ab01c"
    static let appC = "00000003-1111-4222-8333-444455556666"
    static let clients = [appA, appB, appC]
    static let guestTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    /// A user who signs in through the library: home `uid.utid`, an authority per sign-in.
    struct User {
        let uid: String
        let utid: String
        let username: String?
        /// (authority, client, family) of each sign-in, in order.
        let signIns: [(String, String, String?)]
        var home: String { "\(uid).\(utid)" }
    }

    static let users: [User] = [
        User(uid: "11111111-0000-4000-8000-000000000001", utid: "f645ad92-e38d-4d1a-b510-d1b09a74a8ca", username: "user0@contoso.com", signIns: [
            ("https://login.microsoftonline.com/organizations", appA, "1"),
            ("https://login.microsoftonline.com/organizations", appB, "1"),
        ]),
        // An alias host, a second (guest) tenant, and an app outside the family.
        User(uid: "11111111-0000-4000-8000-000000000002", utid: "f645ad92-e38d-4d1a-b510-d1b09a74a8ca", username: "User1@Contoso.com", signIns: [
            ("https://login.windows.net/f645ad92-e38d-4d1a-b510-d1b09a74a8ca", appA, "1"),
            ("https://login.microsoftonline.com/\(guestTenant)", appC, nil),
        ]),
        // Another cloud.
        User(uid: "11111111-0000-4000-8000-000000000003", utid: "0f2bd6f6-3b2f-4a15-9d31-7d4e2b7e4a66", username: "user2@contoso.us", signIns: [
            ("https://login.microsoftonline.us/0f2bd6f6-3b2f-4a15-9d31-7d4e2b7e4a66", appA, "1"),
        ]),
        // The same username as user 0, in a third cloud.
        User(uid: "11111111-0000-4000-8000-000000000004", utid: "5e9a3a2b-1c9d-4f0e-8a6b-2d3c4b5a6978", username: "USER0@contoso.com", signIns: [
            ("https://login.chinacloudapi.cn/5e9a3a2b-1c9d-4f0e-8a6b-2d3c4b5a6978", appB, "1"),
        ]),
        // No username in its ID token.
        User(uid: "11111111-0000-4000-8000-000000000005", utid: "f645ad92-e38d-4d1a-b510-d1b09a74a8ca", username: nil, signIns: [
            ("https://login.microsoftonline.com/organizations", appC, nil),
        ]),
        // A host no known cloud has (B2C), so no alias table names its partitions.
        User(uid: "11111111-0000-4000-8000-000000000006-b2c_1_signin", utid: "775527ff-9a37-4307-8b3d-cc311f58d925", username: "b2c.user@contoso.com", signIns: [
            ("https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_signin", appA, nil),
            ("https://login.microsoftonline.com/organizations", appB, "1"),
        ]),
    ]

    /// A user known only from ADAL's entries (a home account id, a username, an app and a family entry).
    static let adalHome = "22222222-0000-4000-8000-000000000001.f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let adalUser = "adal.only@contoso.com"
    /// An ADAL entry of user 1 filed under another of their usernames.
    static let aliasUser = "alias.user1@contoso.com"

    static func base64URL(_ object: JSONObject) -> String { Base64URL.encode(JSONValue.object(object).serialized()) }

    static func idToken(_ claims: JSONObject) -> String { base64URL(["alg": "none"]) + "." + base64URL(claims) + "." }

    /// The store at `path` as the CLI opens it (sealed with a key file beside it).
    static func open(_ path: String) throws -> any ItemStore {
        try StoreOpener.open(.sqlite(path: path), accessGroups: try AccessGroups([group]), environment: ["TOKENCACHE_KEY": "file"])
    }

    /// Writes the same content into a new store at `path` (the clock fixed at `now`).
    static func seed(_ path: String, now: Date) throws {
        let store = try open(path)
        for (number, user) in users.enumerated() {
            // User 2's sign-ins also write ADAL ≥ 2.7's legacy entries.
            let cache = try TokenCache(store: store, configuration: .init(writesLegacyADALItems: number == 2, clock: { now }))
            for (step, (authority, client, family)) in user.signIns.enumerated() {
                let parsed = try Authority(authority)
                var claims: JSONObject = ["oid": .string(user.uid), "tid": .string(parsed.tenant == "organizations" ? user.utid : parsed.tenant), "name": .string("User \(number)")]
                if let username = user.username { claims["preferred_username"] = .string(username) }
                let response = TokenResponse(
                    accessToken: "AT-\(number)-\(step)", refreshToken: "RT-\(number)-\(step)", idToken: idToken(claims),
                    clientInfo: base64URL(["uid": .string(user.uid), "utid": .string(user.utid)]),
                    scope: step == 0 ? "User.Read Mail.Read openid profile" : "Files.Read", expiresIn: 3600, familyId: family)
                try cache.save(response, for: TokenRequest(authority: parsed, clientId: client, scopes: ["User.Read"], resource: number == 2 ? "https://graph.windows.net" : nil))
            }
        }
        let adalToken = idToken(["upn": .string(adalUser), "tid": "f645ad92-e38d-4d1a-b510-d1b09a74a8ca", "oid": "22222222-0000-4000-8000-000000000001", "name": "ADAL User"])
        let legacy: [StoreItem] = [
            LegacyTokenCacheItem(authority: "https://login.microsoftonline.com/common", clientId: appA, refreshToken: "ADAL-RT", rawIdToken: adalToken, homeAccountId: adalHome)
                .storeItem(accessGroup: group),
            LegacyTokenCacheItem(authority: "https://login.microsoftonline.com/common", clientId: "foci-1", refreshToken: "ADAL-FRT", familyId: "1", rawIdToken: adalToken, homeAccountId: adalHome)
                .storeItem(accessGroup: group),
            // No user: filed under the empty account.
            LegacyTokenCacheItem(authority: "https://login.microsoftonline.com/common", clientId: appC, refreshToken: "ADAL-RT-NOUSER", homeAccountId: users[0].home)
                .storeItem(accessGroup: group),
            LegacyTokenCacheItem(authority: "https://login.microsoftonline.com/common", clientId: appB, refreshToken: "ADAL-RT-ALIAS", homeAccountId: users[1].home)
                .storeItem(accessGroup: group, userId: aliasUser),
        ]
        try store.applyKeepingLookupKeys(legacy.map { .save($0) })
    }

    /// Every question the targeted commands can be asked of the seeded store, found or not.
    static var questions: [[String]] {
        var questions: [[String]] = []
        let homes = users.map(\.home) + [adalHome, "no-such-uid.no-such-utid"]
        let usernames = users.compactMap(\.username) + ["USER1@contoso.com", adalUser, aliasUser, "nobody@contoso.com"]
        for home in homes {
            questions.append(["accounts", "--identifier", home.uppercased()])
            questions.append(["accounts", "--identifier", home, "--json"])
            questions.append(["accounts", "--identifier", home, "--environment", "login.windows.net"])
            questions.append(["accounts", "--identifier", home, "--username", "user0@contoso.com"])
            for client in clients {
                questions.append(["accounts", "--identifier", home, "--client-id", client, "--json"])
                questions.append(["lookup", "refresh-token", "--client-id", client, "--account", home])
                questions.append(["lookup", "refresh-token", "--client-id", client, "--account", home, "--family-id", "1", "--json"])
                questions.append(["lookup", "refresh-token", "--client-id", client, "--account", home, "--environment", "login.microsoftonline.us"])
                questions.append(["lookup", "refresh-token", "--client-id", client, "--account", home, "--environment", "contoso.b2clogin.com"])
                questions.append(["lookup", "access-token", "--client-id", client, "--account", home, "--scopes", "User.Read"])
                questions.append(["lookup", "access-token", "--client-id", client, "--account", home, "--scopes", "files.read", "--json"])
                for environment in ["login.microsoftonline.us", "login.chinacloudapi.cn"] {
                    questions.append(["lookup", "access-token", "--client-id", client, "--account", home, "--scopes", "User.Read", "--environment", environment])
                }
                questions.append(["lookup", "access-token", "--client-id", client, "--account", home, "--scopes", "Files.Read", "--realm", guestTenant])
            }
        }
        for username in usernames {
            questions.append(["accounts", "--username", username])
            questions.append(["accounts", "--username", username, "--json", "--environment", "login.chinacloudapi.cn"])
            for client in clients {
                questions.append(["accounts", "--username", username, "--client-id", client])
                questions.append(["lookup", "refresh-token", "--client-id", client, "--username", username, "--json"])
                questions.append(["lookup", "refresh-token", "--client-id", client, "--username", username, "--family-id", "1"])
            }
        }
        return questions
    }

    /// What a command printed and how it ended.
    static func answer(_ cli: CLI, _ arguments: [String]) throws -> String {
        let result = try cli.run(arguments: arguments, environment: ["TOKENCACHE_KEY": "file"])
        return "status \(result.status)\n\(result.output)\(result.errors)"
    }

    @Test func everyQuestionIsAnsweredAsFromTheWholeStore() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = cli.home.path("cache.sqlite")
        try Self.seed(path, now: Date())
        var found = 0
        for question in Self.questions {
            let arguments = question + ["--store", "sqlite:" + path]
            let partitions = try Self.answer(cli, arguments)
            let whole = try Self.answer(cli, arguments + ["--whole-store"])
            #expect(partitions == whole, "\(question.joined(separator: " "))")
            if partitions.hasPrefix("status 0") { found += 1 }
        }
        // Both kinds of answer are asked for.
        #expect(found > Self.questions.count / 4 && found < Self.questions.count * 3 / 4, "\(found) of \(Self.questions.count) found")
    }

    /// Every item of a store: its identity, and its payload (the wipe record's time aside).
    static func content(_ path: String) throws -> [String] {
        return try open(path).allItems().map { item in
            let identity = "\(item.account)|\(item.service)|\(item.type.map(String.init) ?? "-")"
            return item.account == "TokenWipe" ? identity : identity + "|" + item.data.base64EncodedString()
        }
    }

    @Test(arguments: [
        (0, appA, false), (0, appB, true), (1, appB, false), (1, appA, true), (2, appA, false), (2, appA, true),
        (3, appB, false), (4, appC, true), (5, appA, false), (5, appB, true), (6, appA, false), (6, appA, true), (7, appA, true),
    ])
    func removalRemovesWhatTheWholeStoreRemovalRemoves(user: Int, client: String, wipe: Bool) throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let now = Date()
        let home = user < Self.users.count ? Self.users[user].home : user == Self.users.count ? Self.adalHome : "no-such-uid.no-such-utid"
        var results: [(answer: String, content: [String])] = []
        for flags in [[], ["--whole-store"]] {
            let path = cli.home.path("cache-\(flags.count).sqlite")
            try Self.seed(path, now: now)
            let before = try Self.content(path)
            let arguments = ["remove-account", "--client-id", client, "--account", home, "--store", "sqlite:" + path] + (wipe ? ["--wipe"] : []) + flags
            results.append((try Self.answer(cli, arguments), try Self.content(path)))
            #expect(results.last!.content != before || home.hasPrefix("no-such"), "the removal changed nothing")
        }
        #expect(results[0].answer == results[1].answer)
        #expect(results[0].content == results[1].content)
    }
}
