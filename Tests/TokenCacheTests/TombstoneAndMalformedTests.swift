import CacheStore
import Foundation
import TokenCache
import TokenCacheSchema
import Testing

/// Tombstones (docs/formats/keychain-and-adal-objc.md §1.4) and unreadable items (§1.1 read algorithm).
@Suite struct TombstoneAndMalformedTests {
    let fixture: CacheFixture
    init() throws { fixture = try CacheFixture() }

    func tombstone(_ type: CredentialType, realm: String? = IDs.homeTenant, target: String? = nil) -> Credential {
        Credential(
            credentialType: type, secret: "<tombstone>", clientId: IDs.appA, homeAccountId: IDs.home,
            environment: "login.windows.net", realm: realm, target: target,
            cachedAt: fixture.now, expiresOn: fixture.now + 3600)
    }

    @Test func tombstonedAccessTokenIsNeverReturnedAndIsDeletedByTheNextLookup() throws {
        try fixture.save(TokenResponses.aad(scope: "Mail.Read", accessToken: "live"))
        try fixture.put(tombstone(.accessToken, target: "User.Read"))
        #expect(try fixture.items(type: 2001).count == 2)

        #expect(try fixture.accessToken(scopes: ["User.Read"]) == nil)
        let left = try fixture.items(type: 2001)
        #expect(left.count == 1)
        #expect(try payload(try #require(left.first))["secret"]?.stringValue == "live")
        #expect(try fixture.accessToken(scopes: ["Mail.Read"])?.credential.secret == "live")
    }

    @Test func tombstonedRefreshAndIdTokensAreNeverReturned() throws {
        try fixture.put(tombstone(.refreshToken, realm: nil))
        try fixture.put(tombstone(.idToken))
        #expect(try fixture.cache.refreshToken(RefreshTokenQuery(subject: .homeAccountId(IDs.home), clientId: IDs.appA)) == nil)
        #expect(try fixture.cache.idToken(homeAccountId: IDs.home, clientId: IDs.appA, environment: "login.windows.net") == nil)
        #expect(try fixture.allItems().isEmpty, "both deleted from the store")
    }

    @Test func tombstoneIsNotCountedAsASignedInRefreshToken() throws {
        try fixture.save(TokenResponses.aad(refreshToken: nil))
        var tombstone = tombstone(.refreshToken, realm: nil)
        tombstone.clientId = IDs.appB
        try fixture.put(tombstone)
        #expect(try fixture.cache.accounts(clientId: IDs.appB).isEmpty)
    }

    @Test func malformedItemIsSkippedAndReportedWithoutItsSecret() throws {
        try fixture.save()
        let secret = "eyJ0eXAiOiJKV1QiLCJhbGciOi-very-secret-access-token"
        // Truncated JSON under an access-token type.
        try fixture.put(StoreItem(
            accessGroup: IDs.group, account: "\(IDs.home)-login.windows.net",
            service: "accesstoken-\(IDs.appA)-\(IDs.homeTenant)-mail.read", generic: Data("accesstoken-\(IDs.appA)-\(IDs.homeTenant)".utf8),
            type: 2001, data: Data(#"{"credential_type":"AccessToken","secret":"\#(secret)","target":"Mail.Read","expires_on":"#.utf8)))
        // Well-formed JSON with a field of the wrong kind, under a refresh-token type.
        try fixture.put(StoreItem(
            accessGroup: IDs.group, account: "\(IDs.home)-login.windows.net", service: "refreshtoken-\(IDs.appB)--",
            generic: Data("refreshtoken-\(IDs.appB)-".utf8), type: 2002,
            data: Data(#"{"credential_type":"RefreshToken","secret":"\#(secret)","client_id":{"id":"\#(secret)"}}"#.utf8)))
        // Not JSON at all, under an account type.
        try fixture.put(StoreItem(
            accessGroup: IDs.group, account: "\(IDs.home)-login.windows.net", service: "other-realm",
            generic: Data("x".utf8), type: 1003, data: Data(secret.utf8)))

        #expect(try fixture.accessToken(scopes: ["User.Read"]) != nil, "the good items still answer")
        #expect(try fixture.accessToken(scopes: ["Mail.Read"]) == nil)
        #expect(try fixture.cache.refreshToken(RefreshTokenQuery(subject: .homeAccountId(IDs.home), clientId: IDs.appB)) == nil)
        #expect(try fixture.cache.accounts().count == 1)
        #expect(try fixture.cache.account(identifier: IDs.home)?.tenantProfiles.count == 1)

        let unreadable = try fixture.cache.unreadableItems()
        #expect(unreadable.count == 3)
        for error in unreadable {
            let description = String(describing: error)
            #expect(!description.contains("very-secret"), "\(description)")
            #expect(description.contains(IDs.home), "names the item: \(description)")
        }
        #expect(Set(unreadable.compactMap(\.item?.type)) == [2001, 2002, 1003])
        #expect(try fixture.allItems().count == 9, "unreadable items are left alone")
    }

    @Test func itemsOfOtherLibrariesInTheGroupAreIgnoredQuietly() throws {
        try fixture.save()
        try fixture.put(StoreItem(
            accessGroup: IDs.group, account: "com.microsoft.identity.throttling.metadata", service: "Ver1", data: Data("{}".utf8)))
        #expect(try fixture.cache.unreadableItems().isEmpty)
        #expect(try fixture.accessToken() != nil)
    }

    /// ADAL's own test puts 1,024 random bytes under the legacy generic: MSAL skips such an entry.
    /// The engine skips it too, and reports it (it claims to be an ADAL token but is not one).
    @Test func garbageLegacyEntriesAreSkippedAndReported() throws {
        try fixture.save()
        try fixture.put(StoreItem(
            accessGroup: IDs.group, account: "dXNlckBjb250b3NvLmNvbQ", service: "I'm a service!",
            generic: Data("MSOpenTech.ADAL.1".utf8), data: Data([0x62, 0x70, 0x6c, 0x69])))
        #expect(try fixture.accessToken() != nil)
        #expect(try fixture.cache.refreshToken(RefreshTokenQuery(subject: .username("user@contoso.com"), clientId: IDs.appA)) == nil)
        let unreadable = try fixture.cache.unreadableItems()
        #expect(unreadable.count == 1)
        guard case .malformedArchive(_, let item)? = unreadable.first else {
            Issue.record("expected a malformed archive, got \(unreadable)")
            return
        }
        #expect(item?.service == "I'm a service!")
        #expect(item?.type == nil)
    }
}
