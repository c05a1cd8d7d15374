import CacheStore
import Foundation
import KeyedArchive
import TokenCacheJSON
import TokenCacheSchema
import TestSupport
import Testing

@Suite struct LegacyTokenCacheItemTests {
    static let fixtures = Fixtures.url("adal-objc")

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(name))
    }

    @Test func readsTheADAL1xTokenCacheStoreItem() throws {
        let item = try LegacyTokenCacheItem(archive: try Self.fixture("adal1x-token-cache-store-item.bplist"))
        #expect(item.authority == "https://login.microsoftonline.com/common")
        #expect(item.resource == nil)
        #expect(item.clientId == "27AD83C9-FC05-4A6C-AF01-36EDA42ED18F")
        #expect(item.accessToken == "<access token>")
        #expect(item.accessTokenType == "Bearer")
        #expect(item.refreshToken == "<refresh token>")
        #expect(item.expiresOn == Date(timeIntervalSinceReferenceDate: 1_000_000))
        #expect(item.expiresOn?.timeIntervalSince1970 == 979_307_200)
        #expect(item.kind == .singleResourceToken)
        #expect(item.userId == "myfakeuser@contoso.com")
        #expect(item.storedUserId == "myfakeuser@contoso.com")
        let claims = try #require(item.idTokenClaims)
        #expect(claims["tid"]?.stringValue == "6fd1f5cd-a94c-4335-889b-6c598e6d8048")
        #expect(claims["upn"]?.stringValue == "myfakeuser@contoso.com")
        #expect(!(item.rawIdToken ?? ".").contains("."), "the fixture's ID token is one segment")
    }

    @Test func readsTheADAL1xKeychainItemAtItsKeychainKey() throws {
        let item = try LegacyTokenCacheItem(archive: try Self.fixture("adal1x-keychain-item.bplist"))
        #expect(item.resource == "<resource>")
        // The fixture was stored under a service naming client id …180 (the archive says …18F):
        // lookups go by attributes, so the key is built from the request, not the archive.
        let key = LegacyCacheKey(
            authority: "https://login.microsoftonline.com/common", resource: "<resource>",
            clientId: "27AD83C9-FC05-4A6C-AF01-36EDA42ED180", userId: item.userId)
        #expect(key.account == "bXlmYWtldXNlckBjb250b3NvLmNvbQ")
        #expect(key.service == "MSOpenTech.ADAL.1|" + Base64URL.encode("https://login.microsoftonline.com/common")
            + "|" + Base64URL.encode("<resource>") + "|" + Base64URL.encode("27ad83c9-fc05-4a6c-af01-36eda42ed180"))
    }

    @Test func keysMatchTheTestAssertedExamples() {
        let mixedCase = LegacyCacheKey(authority: "https://loGin.microsoftonline.com/common", resource: "reSOURce", clientId: "clIENt", userId: nil)
        #expect(mixedCase.service == "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg|cmVzb3VyY2U|Y2xpZW50")
        #expect(mixedCase.account == "")
        let mrrt = LegacyCacheKey(authority: "https://login.microsoftonline.com/common", resource: nil, clientId: "client", userId: "Test_UPN@test_devex.com")
        #expect(mrrt.service == "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg|CC3513A0-0E69-4B4D-97FC-DFB6C91EE132|Y2xpZW50")
        #expect(mrrt.account == "dGVzdF91cG5AdGVzdF9kZXZleC5jb20")
        let contoso = LegacyCacheKey(
            authority: "https://login.windows.net/contoso.com", resource: "resource",
            clientId: "c3c7f5e5-7153-44d4-90e6-329686d48d76", userId: "eric_cartman@contoso.com")
        #expect(contoso.service == "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi53aW5kb3dzLm5ldC9jb250b3NvLmNvbQ|cmVzb3VyY2U|YzNjN2Y1ZTUtNzE1My00NGQ0LTkwZTYtMzI5Njg2ZDQ4ZDc2")
        #expect(contoso.account == "ZXJpY19jYXJ0bWFuQGNvbnRvc28uY29t")
        #expect(LegacyCacheKey.generic == Data("MSOpenTech.ADAL.1".utf8))
    }

    @Test func servicesParseBack() {
        let parsed = LegacyCacheKey.components(ofService: "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg|CC3513A0-0E69-4B4D-97FC-DFB6C91EE132|Y2xpZW50")
        #expect(parsed?.authority == "https://login.microsoftonline.com/common")
        #expect(parsed?.resource == nil)
        #expect(parsed?.clientId == "client")
        #expect(LegacyCacheKey.components(ofService: "I'm a service!") == nil)
        #expect(LegacyCacheKey.components(ofService: "MSOpenTech.ADAL.1|a|b|c|appkey") == nil, "five parts are not decomposed")
        #expect(LegacyCacheKey.userId(ofAccount: "ZXJpY19jYXJ0bWFuQGNvbnRvc28uY29t") == "eric_cartman@contoso.com")
    }

    @Test func writtenEntriesReadBackAndKeepUnknownFields() throws {
        var item = LegacyTokenCacheItem(
            authority: "https://login.windows.net/common", resource: nil, clientId: "foci-1",
            refreshToken: "family-rt", familyId: "1",
            rawIdToken: Self.idToken(["upn": "Someone@Contoso.com", "tid": "t", "oid": "o"]),
            cachedAt: Date(timeIntervalSince1970: 1_700_000_000), homeAccountId: "o.t",
            additionalServer: .dictionary([("extended_expires_on", .date(Date(timeIntervalSince1970: 1_700_007_200)))]))
        item.otherFields = [.init("sessionKey", .data(Data([1, 2, 3])))]
        let archive = item.archiveData
        let read = try LegacyTokenCacheItem(archive: archive)
        #expect(read.kind == .refreshToken)
        #expect(read.effectiveFamilyId == "1")
        #expect(read.userId == "someone@contoso.com")
        #expect(read.refreshToken == "family-rt")
        #expect(read.extendedExpiresOn == Date(timeIntervalSince1970: 1_700_007_200))
        #expect(read.otherFields == [.init("sessionKey", .data(Data([1, 2, 3])))])
        #expect(read.archiveData == archive, "writing is deterministic")

        let stored = item.storeItem(accessGroup: "com.microsoft.adalcache")
        #expect(stored.type == nil)
        #expect(stored.generic == Data("MSOpenTech.ADAL.1".utf8))
        #expect(stored.account == Base64URL.encode("someone@contoso.com"))
        #expect(stored.service.hasSuffix("|CC3513A0-0E69-4B4D-97FC-DFB6C91EE132|" + Base64URL.encode("foci-1")))
        #expect(try UnifiedItem(stored) == .other(.legacyADAL))
    }

    @Test func foundationUnarchivesOurArchivesWithClassNamesMapped() throws {
        let item = LegacyTokenCacheItem(
            authority: "https://login.windows.net/common", resource: "https://graph.windows.net", clientId: "client",
            accessToken: "at", expiresOn: Date(timeIntervalSince1970: 1_700_000_000),
            rawIdToken: Self.idToken(["upn": "a@b.c"]))
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: item.archiveData)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        unarchiver.setClass(FoundationTokenItem.self, forClassName: "ADTokenCacheStoreItem")
        unarchiver.setClass(FoundationUserInformation.self, forClassName: "ADUserInformation")
        let decoded = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? FoundationTokenItem)
        #expect(unarchiver.error == nil)
        #expect(decoded.authority == "https://login.windows.net/common")
        #expect(decoded.resource == "https://graph.windows.net")
        #expect(decoded.accessToken == "at")
        #expect(decoded.expiresOn?.timeIntervalSince1970 == 1_700_000_000)
        #expect(decoded.user?.rawIdToken == item.rawIdToken)
        #expect(decoded.user?.userIdDisplayable == true)
    }

    @Test func malformedArchivesAreTypedErrors() throws {
        #expect(throws: SchemaError.self) { try LegacyTokenCacheItem(archive: Data("not an archive".utf8)) }
        let wrongClass = KeyedArchive.encode(root: .object(ArchivedObject(className: "NSSomethingElse", fields: [])))
        #expect { try LegacyTokenCacheItem(archive: wrongClass) } throws: { String(describing: $0).contains("NSSomethingElse") }
        let noClientId = KeyedArchive.encode(root: .object(ArchivedObject(className: "ADTokenCacheStoreItem", fields: [
            .init("authority", .string("https://x/y")), .init("refreshToken", .string("SECRET-RT")),
        ])))
        #expect {
            try LegacyTokenCacheItem(archive: noClientId)
        } throws: { error in
            String(describing: error).contains("clientId") && !String(describing: error).contains("SECRET-RT")
        }
        let wrongType = KeyedArchive.encode(root: .object(ArchivedObject(className: "ADTokenCacheStoreItem", fields: [
            .init("authority", .string("https://x/y")), .init("clientId", .string("c")), .init("expiresOn", .string("soon")),
        ])))
        #expect { try LegacyTokenCacheItem(archive: wrongType) } throws: { String(describing: $0).contains("expiresOn") }
    }

    static func idToken(_ claims: JSONObject) -> String {
        Base64URL.encode(JSONValue.object(["typ": "JWT"]).serialized()) + "." + Base64URL.encode(JSONValue.object(claims).serialized()) + "."
    }
}

/// Stand-ins for ADAL's classes, to prove Foundation's unarchiver reads our archives.
final class FoundationTokenItem: NSObject, NSCoding {
    let authority: String?
    let resource: String?
    let accessToken: String?
    let expiresOn: Date?
    let user: FoundationUserInformation?

    init?(coder: NSCoder) {
        authority = coder.decodeObject(forKey: "authority") as? String
        resource = coder.decodeObject(forKey: "resource") as? String
        accessToken = coder.decodeObject(forKey: "accessToken") as? String
        expiresOn = coder.decodeObject(forKey: "expiresOn") as? Date
        user = coder.decodeObject(forKey: "userInformation") as? FoundationUserInformation
    }

    func encode(with coder: NSCoder) {}
}

final class FoundationUserInformation: NSObject, NSCoding {
    let rawIdToken: String?
    let userIdDisplayable: Bool

    init?(coder: NSCoder) {
        rawIdToken = coder.decodeObject(forKey: "rawIdToken") as? String
        userIdDisplayable = coder.decodeBool(forKey: "userIdDisplayable")
    }

    func encode(with coder: NSCoder) {}
}
