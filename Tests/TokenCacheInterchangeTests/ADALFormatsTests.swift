import CacheStore
import Foundation
import KeyedArchive
import Testing
import TokenCache
import TokenCacheDisplay
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

/// ADAL.NET v3 blobs and ADAL macOS archives, in and out.
@Suite struct ADALFormatsTests {
    @Test func theADALNetV3FixtureReadsAsADALWroteIt() throws {
        let data = try fixture("adal-dotnet/oldcache.serialized")
        #expect(ImportFormat.detect(data) == .adalV3)
        let entries = try ADALNetV3Blob.read(data, source: "oldcache.serialized")
        #expect(entries.count == 14)
        #expect(entries[0].key.utf8.count == 3082, "the first key's 7-bit length is 8a 18")
        #expect(entries.allSatisfy { $0.subjectType == 0 })
        let expiresOn = try #require(ADALNetV3Blob.date(entries[0].value["Result"]?.objectValue?["ExpiresOn"]))
        #expect(expiresOn.timeIntervalSince1970 > 1_400_000_000 && expiresOn.timeIntervalSince1970 < 1_500_000_000, "2016")
        #expect(ADALNetV3Blob.write(entries) == data, "writing the entries back gives the same bytes")
    }

    @Test func theADALNetV3FixtureListsItsUsersAndYieldsTheirRefreshTokens() throws {
        let data = try fixture("adal-dotnet/oldcache.serialized")
        let entries = try ADALNetV3Blob.read(data, source: "fixture")
        let (store, report) = try imported(data, source: "oldcache.serialized")
        #expect(report.format == .adalV3)
        #expect(report.entries == 14)
        #expect(report.imported == 28, "an access-token entry and a multi-resource refresh-token entry each")

        let cache = try TokenCache(store: store)
        let users = Set(entries.compactMap { $0.value["Result"]?.objectValue?["UserInfo"]?.objectValue?["DisplayableId"]?.stringValue })
        let listed = try cache.accounts()
        #expect(Set(listed.compactMap(\.username)) == Set(users.map { ItemKey.normalized($0) }))
        #expect(listed.allSatisfy { $0.source == .legacyADAL })
        for entry in entries {
            let user = try #require(entry.value["Result"]?.objectValue?["UserInfo"]?.objectValue?["DisplayableId"]?.stringValue)
            let found = try cache.refreshToken(RefreshTokenQuery(subject: .username(user.uppercased()), clientId: entry.clientId))
            #expect(found?.credential.secret == entry.value["RefreshToken"]?.stringValue)
            #expect(found?.source == .legacyADAL)
        }
    }

    @Test func entriesWithClientInfoAlsoBecomeUnifiedTokensAndAccounts() throws {
        let clientInfo = Base64URL.encode(JSONValue.object(["uid": "u1", "utid": "t1"]).serialized())
        let blob = ADALNetV3Blob.write([
            .init(authority: "https://login.microsoftonline.com/t1/", resource: "https://graph.windows.net", clientId: "client",
                  subjectType: 0, value: [
                    "RefreshToken": "rt-secret", "ResourceInResponse": "https://graph.windows.net", "RawClientInfo": .string(clientInfo),
                    "Result": ["AccessToken": "at-secret", "AccessTokenType": "Bearer", "TenantId": "t1",
                               "ExpiresOn": ADALNetV3Blob.dataContract(Date(timeIntervalSince1970: 2_000_000_000)),
                               "UserInfo": ["DisplayableId": "Someone@Contoso.com", "UniqueId": "oid-1"]],
                  ]),
            .init(authority: "https://login.microsoftonline.com/t1/", resource: "r", clientId: "daemon", subjectType: 1,
                  value: ["Result": ["AccessToken": "app-token"]]),
        ])
        let (store, report) = try imported(blob)
        #expect(report.skipped.count == 1, "the client-credential entry")
        let cache = try TokenCache(store: store)
        let account = try #require(try cache.account(identifier: "u1.t1"))
        #expect(account.source == .unified)
        #expect(account.username == "Someone@Contoso.com")
        #expect(try cache.accounts().count == 1, "the legacy entries are the same user")
        let unified = try cache.refreshToken(RefreshTokenQuery(subject: .homeAccountId("u1.t1"), clientId: "client"))
        #expect(unified?.source == .unified)
        #expect(unified?.credential.secret == "rt-secret")
        let legacy = try #require(try store.items(matching: ItemQuery(generic: LegacyCacheKey.generic)).first { $0.service.contains(Base64URL.encode("https://graph.windows.net")) })
        let item = try LegacyTokenCacheItem(archive: legacy.data)
        #expect(item.accessToken == "at-secret")
        #expect(item.expiresOn == Date(timeIntervalSince1970: 2_000_000_000))
        #expect(legacy.account == Base64URL.encode("someone@contoso.com"))
    }

    @Test func exportWritesRefreshTokensADALNetReads() throws {
        let store = try newStore()
        let cache = try TokenCache(store: store)
        func encode(_ object: JSONObject) -> String { Base64URL.encode(JSONValue.object(object).serialized()) }
        try cache.save(
            TokenResponse(
                accessToken: "at", refreshToken: "the-refresh-token",
                idToken: encode(["alg": "none"]) + "." + encode(["tid": "t1", "oid": "o1", "preferred_username": "User@Contoso.com"]) + ".",
                clientInfo: encode(["uid": "o1", "utid": "t1"]), scope: "https://storage.azure.com/user_impersonation", expiresIn: 3600, familyId: "1"),
            for: TokenRequest(authority: try Authority("https://login.microsoftonline.com/common"), clientId: "client-a", scopes: []))
        let (data, report) = try CacheInterchange(store: store).export(.adalV3)
        #expect(report.exported == 1, "the app's refresh token; the family copy is not an ADAL entry")
        let entries = try ADALNetV3Blob.read(data, source: "export")
        let entry = try #require(entries.first)
        #expect(entry.authority == "https://login.windows.net/t1/")
        #expect(entry.resource == "https://storage.azure.com")
        #expect(entry.clientId == "client-a")
        #expect(entry.value["RefreshToken"]?.stringValue == "the-refresh-token")
        #expect(entry.value["ResourceInResponse"]?.stringValue == "https://storage.azure.com", "a multi-resource refresh token")
        #expect(entry.value["Result"]?.objectValue?["UserInfo"]?.objectValue?["DisplayableId"]?.stringValue == "User@Contoso.com")
        #expect(entry.value["RawClientInfo"]?.stringValue == encode(["uid": "o1", "utid": "t1"]))

        // And it imports back: the user is found by username in a fresh store.
        let (again, _) = try imported(data)
        let found = try TokenCache(store: again).refreshToken(RefreshTokenQuery(subject: .username("user@contoso.com"), clientId: "client-a"))
        #expect(found?.credential.secret == "the-refresh-token")
    }

    static func macArchive(version: ArchivedValue = .real(1.0), tokens: ArchivedValue) -> Data {
        KeyedArchive.encode(root: .dictionary([
            ("version", version),
            ("tokenCache", .dictionary([("tokens", tokens)], className: "NSMutableDictionary")),
        ]))
    }

    static func macToken(clientId: String, refreshToken: String?, resource: String? = nil, accessToken: String? = nil) -> ArchivedValue {
        let item = LegacyTokenCacheItem(
            authority: "https://login.windows.net/common", resource: resource, clientId: clientId,
            accessToken: accessToken, refreshToken: refreshToken)
        guard case .object(let object) = try! KeyedArchive.decode(item.archiveData) else { fatalError("not an object") }
        return .object(object)
    }

    @Test func adalMacOSArchivesImportTheirUsersTokens() throws {
        let key: ArchivedValue = .object(ArchivedObject(className: "ADTokenCacheKey", fields: [
            .init("authority", .string("https://login.windows.net/common")), .init("clientId", .string("mac-client")),
        ]))
        let data = Self.macArchive(tokens: .dictionary(className: "NSMutableDictionary", keys: [.string("mac.user@contoso.com")], values: [
            .dictionary(className: "NSMutableDictionary",
                        keys: [key, key, key],
                        values: [Self.macToken(clientId: "mac-client", refreshToken: "mac-rt"),
                                 Self.macToken(clientId: "mac-client", refreshToken: nil, resource: "https://graph.windows.net", accessToken: "mac-at"),
                                 Self.macToken(clientId: "mac-client", refreshToken: LegacyTokenCacheItem.tombstoneRefreshToken, resource: "gone")]),
        ]))
        #expect(ImportFormat.detect(data) == .adalMacOS)
        let (store, report) = try imported(data)
        #expect(report.format == .adalMacOS)
        #expect(report.imported == 2)
        #expect(report.skipped.count == 1, "the tombstone")
        let cache = try TokenCache(store: store)
        #expect(try cache.accounts().compactMap(\.username) == ["mac.user@contoso.com"])
        #expect(try cache.refreshToken(RefreshTokenQuery(subject: .username("Mac.User@contoso.com"), clientId: "mac-client"))?.credential.secret == "mac-rt")
    }

    @Test func adalKeychainItemArchivesImportAsTheLegacyItemADALKeeps() throws {
        for (name, resource) in [("adal1x-token-cache-store-item.bplist", nil), ("adal1x-keychain-item.bplist", "<resource>")] as [(String, String?)] {
            let data = try fixture("adal-objc/" + name)
            #expect(ImportFormat.detect(data) == .adalKeychainItem, "\(name)")
            let (store, report) = try imported(data, source: name)
            #expect(report.format == .adalKeychainItem)
            #expect(report.imported == 1)
            let item = try #require(try store.allItems().first)
            let expected = LegacyCacheKey(authority: "https://login.microsoftonline.com/common", resource: resource,
                                          clientId: "27AD83C9-FC05-4A6C-AF01-36EDA42ED18F", userId: "myfakeuser@contoso.com")
            #expect(item.account == expected.account && item.service == expected.service && item.generic == LegacyCacheKey.generic)
            let cache = try TokenCache(store: store)
            #expect(try cache.accounts().compactMap(\.username) == ["myfakeuser@contoso.com"])
            // Only the multi-resource-shaped entry (no resource) answers MSAL's search.
            let projected = try cache.search(CacheSearch(kind: .refreshToken)).compactMap { $0["secret"]?.stringValue }
            #expect(projected == (resource == nil ? ["<refresh token>"] : []))
        }
        let macOS = Self.macArchive(tokens: .dictionary([]))
        #expect(ImportFormat.detect(macOS) == .adalMacOS, "a dictionary root stays ADAL macOS's")
        let notAnItem = KeyedArchive.encode(root: .object(ArchivedObject(className: "ADTokenCacheStoreItem", fields: [
            .init("authority", .integer(1)), .init("clientId", .string("c")),
        ])))
        let store = try newStore()
        #expect(throws: InterchangeError.self) { try CacheInterchange(store: store).importData(notAnItem, source: "bad.bplist") }
        #expect(try store.allItems().isEmpty)
    }

    @Test func malformedADALInputIsATypedErrorAndImportsNothing() throws {
        let good = try fixture("adal-dotnet/oldcache.serialized")
        var cases: [Data] = [
            Data([3, 0, 0, 0, 1, 0, 0, 0]),  // one entry promised, none there
            Data([3, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0]),  // 2^31 entries
            Data([3, 0, 0, 0, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),  // a 4 GiB string
            Data([3, 0, 0, 0, 1, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),  // a length of six bytes
            ADALNetV3Blob.write([.init(authority: "a", resource: "b", clientId: "c", subjectType: 0, value: [:])]).dropLast(1),
            Data([4, 0, 0, 0, 0, 0, 0, 0]),  // version 4
        ]
        cases.append(good.prefix(good.count / 2))
        // A key without four parts, and a value that is not an object.
        var bad = Data([3, 0, 0, 0, 1, 0, 0, 0, 3]) + Data("a:b".utf8) + Data([2]) + Data("{}".utf8)
        cases.append(bad)
        bad = Data([3, 0, 0, 0, 1, 0, 0, 0, 10]) + Data("a:::b:::c:".utf8) + Data([2]) + Data("{}".utf8)
        cases.append(bad)
        bad = Data([3, 0, 0, 0, 1, 0, 0, 0, 11]) + Data("a:::b:::c:::0".utf8.dropLast(2)) + Data(":0".utf8) + Data([2]) + Data("[]".utf8)
        cases.append(bad)
        cases.append(Self.macArchive(version: .real(2.0), tokens: .dictionary([])))
        cases.append(Self.macArchive(tokens: .string("not a dictionary")))
        for (index, data) in cases.enumerated() {
            let store = try newStore()
            #expect(throws: InterchangeError.self, "case \(index)") {
                try CacheInterchange(store: store).importData(data, source: "bad.bin", format: index >= cases.count - 2 ? .adalMacOS : .adalV3)
            }
            #expect(try store.allItems().isEmpty)
        }
    }

    @Test func everyTruncationOfTheADALNetFixtureFailsCleanly() throws {
        let data = try fixture("adal-dotnet/oldcache.serialized")
        for length in stride(from: 0, to: data.count, by: 97) {
            #expect(throws: InterchangeError.self) { try ADALNetV3Blob.read(data.prefix(length), source: "cut") }
        }
    }
}

@Suite struct LegacyPayloadViewTests {
    @Test func keyedArchivesAreShownDecodedWithTokensRedacted() throws {
        let item = LegacyTokenCacheItem(
            authority: "https://login.windows.net/common", resource: nil, clientId: "client",
            refreshToken: "LEGACY-REFRESH-SECRET", expiresOn: Date(timeIntervalSince1970: 0),
            rawIdToken: "eyJ0eXAiOiJKV1QifQ.eyJ1cG4iOiJhQGIuYyJ9.")
        let stored = item.storeItem(accessGroup: group)
        let view = PayloadView.object(for: stored, revealSecrets: false)
        let payload = try #require(view["payload"]?.objectValue)
        #expect(payload["$class"] == "ADTokenCacheStoreItem")
        #expect(payload["clientId"] == "client")
        #expect(payload["refreshToken"] == .string("<redacted: 21 chars>"))
        #expect(payload["expiresOn"] == "1970-01-01T00:00:00.000Z")
        #expect(payload["userInformation"]?.objectValue?["rawIdToken"]?.stringValue?.hasPrefix("<redacted") == true)
        let text = PayloadView.prettyPrinted(.object(view))
        #expect(!text.contains("LEGACY-REFRESH-SECRET"))
        let revealed = PayloadView.object(for: stored, revealSecrets: true)
        #expect(revealed["payload"]?.objectValue?["refreshToken"] == "LEGACY-REFRESH-SECRET")
    }
}
