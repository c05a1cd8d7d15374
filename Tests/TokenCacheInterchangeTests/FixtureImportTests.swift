import CacheStore
import Foundation
import Testing
import TokenCache
import TokenCacheInterchange
import TokenCacheSchema

/// Every JSON cache in the fixtures (Tests/Fixtures) imports, lists the accounts its writer lists, and yields
/// its refresh tokens by username — checked through the engine, as an app would.
@Suite struct FixtureImportTests {
    struct Expectation: Sendable, CustomTestStringConvertible {
        var file: String
        /// (home account id, username) of every account, in any order.
        var accounts: Set<[String]>
        /// Client id whose refresh token each username yields (nil: the cache holds no refresh token).
        var refreshTokenClient: String?
        /// A family id whose family refresh token each username yields.
        var familyId: String?
        /// Items written.
        var items: Int
        var skipped = 0
        var adjusted = 0

        var testDescription: String { file }
    }

    static let dotnetHome = "my-uid.my-utid"
    static let dotnetClient = "d3adb33f-c0de-ed0c-c0de-deadb33fc0d3"

    static let expectations: [Expectation] = [
        Expectation(file: "msal-dotnet/ExpectedTokenCache.json", accounts: [[dotnetHome, "joe@localhost.com"]],
                    refreshTokenClient: dotnetClient, familyId: "1", items: 18, adjusted: 3),
        Expectation(file: "msal-dotnet/CacheFromTheFuture.json", accounts: [[dotnetHome, "joe@localhost.com"]],
                    refreshTokenClient: dotnetClient, familyId: "1", items: 18, adjusted: 3),
        Expectation(file: "msal-dotnet/token_cache_adfs.json",
                    accounts: [["unzyjm1nugflhp1l338bxhryyhbtcyowx1p+f2fcsiq=", "fidlab@msidlab8.com"]],
                    refreshTokenClient: "PublicClientId", items: 5),
        Expectation(file: "msal-dotnet/MultiCloudTokenCache.json",
                    accounts: [
                        ["8d6ac642-17f6-4dd8-81e2-bf5bdb9a60d7.9e5e17b6-6e3d-4515-8895-0e7756474486", "usercn@cloudcn.partner.onmschina.cn"],
                        ["6afc833f-49c0-4fd5-b685-2998a6cc8d8d.469fdeb4-d4fd-4fde-991e-308a78e4bea4", "userde@cloudde.onmicrosoft.de"],
                        ["ae821e4d-f408-451a-af82-882691148603.49f548d0-12b7-4169-a390-bb5304d24462", "user@cloud.onmicrosoft.com"],
                    ],
                    refreshTokenClient: "0615b6ca-88d4-4884-8729-b178178f7c27", items: 13),
        Expectation(file: "msal-dotnet/TokenCacheWithWamId.json",
                    accounts: [
                        ["6eeda3a1-c3b9-4e92-a94d-965a50c06de7.72f988bf-86f1-41af-91ab-2d7cd011db47", "user@domain.com"],
                        ["ae821e4d-f408-451a-af82-882691148603.49f548d0-12b7-4169-a390-bb5304d24462", "someone_else@domain.com"],
                    ],
                    refreshTokenClient: nil, items: 10),
        Expectation(file: "msal-go/test_serialized_cache.json", accounts: [["uid.utid", "John Doe"]],
                    refreshTokenClient: "my_client_id", items: 5, skipped: 1),
        Expectation(file: "msal-go/v1.0_cache.json", accounts: [["uid.utid", "John Doe"]],
                    refreshTokenClient: "my_client_id", items: 5),
        Expectation(file: "msal-node/cache.json", accounts: [["uid.utid", "johndoe@microsoft.com"]],
                    refreshTokenClient: "mock_client_id", familyId: "1", items: 8),
        Expectation(file: "msal-node/cache-unrecognized-entities.json", accounts: [["uid.utid", "John Doe"]],
                    refreshTokenClient: "mock_client_id", familyId: "1", items: 7),
        Expectation(file: "adal-dotnet/ADALv5TokenCache.json", accounts: [[dotnetHome, "joe@localhost.com"]],
                    refreshTokenClient: dotnetClient, items: 14, adjusted: 3),
        Expectation(file: "adal-dotnet/FociTokenCacheFromMsal3.json", accounts: [[dotnetHome, "joe@localhost.com"]],
                    refreshTokenClient: dotnetClient, familyId: "1", items: 18, adjusted: 3),
    ]

    @Test(arguments: expectations)
    func importsAndListsLikeItsWriter(_ expected: Expectation) throws {
        let data = try fixture(expected.file)
        #expect(ImportFormat.detect(data) == .msalJSON)
        let (store, report) = try imported(data, source: expected.file)
        #expect(report.format == .msalJSON)
        #expect(report.imported == expected.items)
        #expect(report.added == expected.items)
        #expect(report.skipped.count == expected.skipped, "\(report.skipped)")
        #expect(report.adjusted.count == expected.adjusted, "\(report.adjusted)")
        #expect(try store.allItems().count == expected.items)

        // Every item decodes as the unified item it claims to be, under the key IdentityCore computes.
        for item in try store.allItems() {
            let unified = try UnifiedItem(item)
            let key = try #require(unified.key)
            #expect(key.account == item.account && key.service == item.service && key.type == item.type && key.generic == item.generic)
        }

        let cache = try TokenCache(store: store)
        #expect(try cache.unreadableItems().isEmpty)
        let accounts = try cache.accounts()
        #expect(Set(accounts.map { [$0.homeAccountId, $0.username ?? ""] }) == expected.accounts)

        for account in expected.accounts {
            let username = account[1]
            if let client = expected.refreshTokenClient {
                let token = try #require(try cache.refreshToken(RefreshTokenQuery(subject: .username(username), clientId: client)),
                                         "no refresh token for \(username)")
                #expect(ItemKey.normalized(token.credential.clientId ?? "") == ItemKey.normalized(client))
                #expect(token.credential.familyId ?? "" == "")
                #expect(!token.credential.secret.isEmpty)
            } else {
                #expect(try cache.refreshToken(RefreshTokenQuery(subject: .username(username), clientId: "any")) == nil)
            }
            if let family = expected.familyId {
                let token = try #require(try cache.refreshToken(RefreshTokenQuery(
                    subject: .username(username), clientId: expected.refreshTokenClient ?? "", familyId: family)))
                #expect(token.credential.familyId == family)
            }
        }
    }

    @Test func msalDotNetDictionaryImports() throws {
        let data = try fixture("msal-dotnet/cachecompat_dotnet_dictionary.bin")
        #expect(ImportFormat.detect(data) == .msalV2)
        let (store, report) = try imported(data, source: "cachecompat_dotnet_dictionary.bin")
        #expect(report.format == .msalV2)
        #expect(report.imported == 4)
        let cache = try TokenCache(store: store)
        let accounts = try cache.accounts()
        #expect(accounts.map(\.username) == ["abhi@ddobalianoutlook.onmicrosoft.com"])
        #expect(accounts.first?.name == "Abhi Test")
        let rt = try #require(try cache.refreshToken(RefreshTokenQuery(
            subject: .username("ABHI@ddobalianoutlook.onmicrosoft.com"), clientId: "b945c513-3946-4ecd-b179-6499803a2167")))
        #expect(rt.credential.secret.count == 783)

        let home = "13dd2c19-84cd-416a-ae7d-49573e425619.26039cce-489d-4002-8293-5b0c5134eacb"
        let at = try #require(try store.items(matching: ItemQuery(type: 2001)).first)
        #expect(at.account == home + "-login.windows.net")
        #expect(at.service == "accesstoken-b945c513-3946-4ecd-b179-6499803a2167-26039cce-489d-4002-8293-5b0c5134eacb-user.read user.readbasic.all profile openid email")
        let credential = try Credential(storeItem: at)
        #expect(credential.extendedExpiresOn == 1_548_846_619)  // read from ext_expires_on, the only name it has
        #expect(credential.additionalFields["access_token_type"] == "Bearer")  // unknown fields survive
        #expect(try store.items(matching: ItemQuery(type: 2003)).count == 1)
    }

    @Test func msalNodeEntriesGetIdentityCoreKeysAndKeepTheirCamelCaseFields() throws {
        let (store, _) = try imported(try fixture("msal-node/cache.json"))
        let account = "uid.utid-login.microsoftonline.com"
        let bearer = try #require(try payload(in: store, account: account, service: "accesstoken-mock_client_id-utid-scope1 scope2 scope3", type: 2001))
        #expect(bearer["user_assertion_hash"] == "mock_hash_string")
        #expect(bearer["userAssertionHash"] == "mock_hash_string")
        let pop = try #require(try payload(in: store, account: account, service: "accesstoken_with_authscheme-mock_client_id-utid-scope4 scope5-pop", type: 2007))
        #expect(pop["kid"] == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(pop["token_type"] == "pop")
        #expect(try payload(in: store, account: account, service: "refreshtoken-mock_client_id--", type: 2002) != nil)
        #expect(try payload(in: store, account: account, service: "refreshtoken-1--", type: 2002)?["family_id"] == "1")
        #expect(try payload(in: store, account: account, service: "idtoken-mock_client_id-utid-", type: 2003) != nil)
        #expect(try payload(in: store, account: account, service: "utid", type: 1003)?["tenantProfiles"] != nil)
        #expect(try payload(in: store, account: "login.microsoftonline.com", service: "appmetadata-mock_client_id", type: 3001) != nil)
    }

    @Test func goEntriesWithRefreshTokenTargetsAndMixedCaseKeys() throws {
        let (store, report) = try imported(try fixture("msal-go/v1.0_cache.json"))
        #expect(report.skipped.isEmpty)
        let rt = try #require(try payload(in: store, account: "uid.utid-login.windows.net", service: "refreshtoken-my_client_id--", type: 2002))
        #expect(rt["target"] == "s2 s1 s3")  // kept in the payload, not in the key
        #expect(try payload(in: store, account: "uid.utid-login.windows.net", service: "contoso", type: 1003)?["username"] == "John Doe")

        let (_, withUnknown) = try imported(try fixture("msal-go/test_serialized_cache.json"))
        #expect(withUnknown.skipped.map(\.path) == ["AccessToken 'an-entry'"])
        #expect(withUnknown.skipped.first?.reason.contains("secret") == true)
    }
}
