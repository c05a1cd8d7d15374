import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// What `save` writes, checked item by item against the keychain layout MSAL ObjC writes
/// (docs/formats/keychain-and-adal-objc.md §1.3–1.7, §4.1–4.5; the values MSIDCacheSchemaValidationTests asserts).
@Suite struct SaveTests {
    let fixture: CacheFixture
    init() throws { fixture = try CacheFixture() }

    var t0: String { String(fixture.now) }
    /// The account attribute of every credential and account of the default user (§1.3, §1.5).
    let userAccount = "\(IDs.home)-login.windows.net"
    let atService = "accesstoken-\(IDs.appA)-\(IDs.homeTenant)-calendars.read openid profile tasks.read user.read email"

    // MARK: - One AAD response, every item

    /// MSAL ObjC's five and the account's sign-in state, which tokencache keeps in the account's
    /// partition (type 9001) instead of MSAL ObjC's per-app item (5001).
    @Test func aadResponseWritesTheFiveItemsMSALObjCWritesAndTheSignInState() throws {
        try fixture.save()
        let items = try fixture.allItems()
        #expect(items.count == 6)
        #expect(Set(items.map(\.type)) == [2001, 2002, 2003, 1003, 3001, 9001])
        #expect(items.allSatisfy { $0.accessGroup == IDs.group })
    }

    @Test func accessTokenAttributesAndPayload() throws {
        try fixture.save()
        let item = try fixture.item(account: userAccount, service: atService, type: 2001)
        #expect(text(item.generic) == "accesstoken-\(IDs.appA)-\(IDs.homeTenant)")
        let json = try stringMembers(try payload(item))
        #expect(json == [
            "credential_type": "AccessToken",
            "secret": "access-token-secret",
            "client_id": IDs.appA,
            "home_account_id": IDs.home,
            "environment": "login.windows.net",
            "realm": IDs.homeTenant,
            "target": "Calendars.Read openid profile Tasks.Read User.Read email",
            "cached_at": t0,
            "expires_on": String(fixture.now + 3600),
            "extended_expires_on": String(fixture.now + 7200),
        ])
    }

    @Test func refreshTokenAttributesAndPayload() throws {
        try fixture.save()
        let item = try fixture.item(account: userAccount, service: "refreshtoken-\(IDs.appA)--", type: 2002)
        #expect(text(item.generic) == "refreshtoken-\(IDs.appA)-")
        #expect(try stringMembers(try payload(item)) == [
            "credential_type": "RefreshToken",
            "secret": "refresh-token-secret",
            "client_id": IDs.appA,
            "home_account_id": IDs.home,
            "environment": "login.windows.net",
        ])
    }

    @Test func idTokenAttributesAndPayload() throws {
        let response = TokenResponses.aad()
        try fixture.save(response)
        let item = try fixture.item(account: userAccount, service: "idtoken-\(IDs.appA)-\(IDs.homeTenant)-", type: 2003)
        #expect(text(item.generic) == "idtoken-\(IDs.appA)-\(IDs.homeTenant)")
        #expect(try stringMembers(try payload(item)) == [
            "credential_type": "IdToken",
            "secret": try #require(response.idToken),
            "client_id": IDs.appA,
            "home_account_id": IDs.home,
            "environment": "login.windows.net",
            "realm": IDs.homeTenant,
        ])
    }

    @Test func accountAttributesAndPayload() throws {
        let response = TokenResponses.aad(username: "IDLab@MSIDLAB4.onmicrosoft.com")
        try fixture.save(response)
        let item = try fixture.item(account: userAccount, service: IDs.homeTenant, type: 1003)
        #expect(text(item.generic) == "idlab@msidlab4.onmicrosoft.com", "generic is ItemKey.normalized(username)")
        #expect(try stringMembers(try payload(item)) == [
            "authority_type": "MSSTS",
            "home_account_id": IDs.home,
            "environment": "login.windows.net",
            "realm": IDs.homeTenant,
            "local_account_id": IDs.uid,
            "username": "IDLab@MSIDLAB4.onmicrosoft.com",
            "name": "Cloud IDLAB Basic User",
            "client_info": try #require(response.clientInfo),
        ])
    }

    @Test func appMetadataOfANonFamilyAppHasAnEmptyFamilyId() throws {
        try fixture.save()
        let item = try fixture.item(account: "login.windows.net", service: "appmetadata-\(IDs.appA)", type: 3001)
        #expect(item.generic == Data(), "generic is empty data, not absent")
        #expect(try stringMembers(try payload(item)) == [
            "client_id": IDs.appA, "environment": "login.windows.net", "family_id": "",
        ])
    }

    @Test func theAccountsOwnItemMarksItSignedIn() throws {
        try fixture.save()
        let item = try fixture.item(account: userAccount, service: IDs.appA, type: 9001)
        #expect(item.generic == nil)
        var members = try payload(item)
        #expect(members["athority_map"]?.objectValue?.isEmpty == true)
        members["athority_map"] = nil
        #expect(try stringMembers(members) == [
            "client_id": IDs.appA, "home_account_id": IDs.home, "sign_in_state": "signed_in", "environment": "login.windows.net",
        ])
        #expect(try fixture.items(type: 5001).isEmpty, "no item every account of the app shares")
    }

    @Test func everyTimestampIsAJSONString() throws {
        try fixture.save(TokenResponses.aad(refreshIn: 1800))
        let at = try #require(try fixture.items(type: 2001).first)
        let json = try payload(at)
        for field in ["cached_at", "expires_on", "extended_expires_on", "refresh_on"] {
            let value = try #require(json[field], "\(field) missing")
            #expect(value.stringValue != nil, "\(field) is a \(value.kindName)")
            #expect(value.stringValue.flatMap { Int64($0) } != nil, "\(field) is not integer text")
        }
        #expect(json["refresh_on"]?.stringValue == String(fixture.now + 1800))
    }

    // MARK: - Environment and realm

    @Test func environmentIsThePreferredCacheHost() throws {
        let saved = try fixture.save(authority: "https://login.microsoftonline.com/common")
        #expect(saved.environment == "login.windows.net")
        let environments = try fixture.allItems().compactMap { item -> String? in
            item.type == 5001 ? nil : (try? payload(item))?["environment"]?.stringValue
        }
        #expect(environments.count == 6)
        #expect(Set(environments) == ["login.windows.net"])
    }

    @Test(arguments: ["common", "organizations", IDs.homeTenant])
    func realmIsTheIdTokenTenant(_ tenant: String) throws {
        let saved = try fixture.save(authority: "https://login.microsoftonline.com/\(tenant)")
        #expect(saved.realm == IDs.homeTenant)
        for type: UInt32 in [2001, 2003, 1003] {
            let item = try #require(try fixture.items(type: type).first)
            #expect(try payload(item)["realm"]?.stringValue == IDs.homeTenant)
        }
        #expect(try fixture.items(type: 1003).first?.service == IDs.homeTenant)
    }

    // MARK: - FOCI

    @Test func familyResponseWritesTheFamilyCopyAndThePlainRefreshToken() throws {
        try fixture.save(TokenResponses.aad(foci: "1"))
        let family = try fixture.item(account: userAccount, service: "refreshtoken-1--", type: 2002)
        #expect(text(family.generic) == "refreshtoken-1-")
        #expect(try stringMembers(try payload(family)) == [
            "credential_type": "RefreshToken", "secret": "refresh-token-secret", "client_id": IDs.appA,
            "home_account_id": IDs.home, "environment": "login.windows.net", "family_id": "1",
        ])
        let plain = try fixture.item(account: userAccount, service: "refreshtoken-\(IDs.appA)--", type: 2002)
        #expect(try payload(plain)["family_id"] == nil)
        #expect(try fixture.items(type: 2002).count == 2)
        #expect(try fixture.items(type: 2008).isEmpty)

        let metadata = try fixture.item(account: "login.windows.net", service: "appmetadata-\(IDs.appA)", type: 3001)
        #expect(text(metadata.generic) == "1")
        #expect(try payload(metadata)["family_id"]?.stringValue == "1")
    }

    /// A save writes the app metadata only when it changes: a rewrite would move the one partition
    /// every client's app metadata lives in (per cloud) to a new revision, and every other engine
    /// would read it again. A change of family still writes it.
    @Test func appMetadataIsWrittenOnlyWhenItChanges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups([IDs.group]))
        let fixture = try CacheFixture(store: store)
        func revision() throws -> ChangeStamp {
            try store.readPartition(accessGroup: IDs.group, account: "login.windows.net").revision
        }
        let metadataService = "appmetadata-\(IDs.appA)"
        let first = try fixture.save(TokenResponses.aad())
        #expect(first.saved.contains { $0.service == metadataService })
        let written = try revision()

        fixture.clock.advance(by: 60)
        let second = try fixture.save(TokenResponses.aad(scope: "Mail.Read"))
        #expect(!second.saved.contains { $0.service == metadataService })
        #expect(second.saved.contains { $0.type == 2001 }, "the rest of the response is saved")
        #expect(try revision() == written, "the app metadata's partition is untouched")
        // A second engine on the same file (read from the store, not carried over) skips it too.
        let other = try CacheFixture(store: try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups([IDs.group])))
        #expect(!(try other.save(TokenResponses.aad(scope: "Files.Read"))).saved.contains { $0.service == metadataService })
        #expect(try revision() == written)

        let family = try fixture.save(TokenResponses.aad(foci: "1"))
        #expect(family.saved.contains { $0.service == metadataService })
        #expect(try payload(try fixture.item(account: "login.windows.net", service: metadataService, type: 3001))["family_id"]?.stringValue == "1")
        let leftFamily = try fixture.save(TokenResponses.aad())
        #expect(leftFamily.saved.contains { $0.service == metadataService })
        #expect(try payload(try fixture.item(account: "login.windows.net", service: metadataService, type: 3001))["family_id"]?.stringValue == "")
        #expect(try fixture.items(type: 3001).count == 1)

        // Another writer's copy, the same payload under another generic, is written over.
        var odd = try fixture.item(account: "login.windows.net", service: metadataService, type: 3001)
        odd.generic = Data("other".utf8)
        try store.save(odd)
        #expect(try fixture.save(TokenResponses.aad()).saved.contains { $0.service == metadataService })
        #expect(try fixture.item(account: "login.windows.net", service: metadataService, type: 3001).generic == Data())
    }

    @Test func singleFamilyRefreshTokenModeWritesOnlyA2008Item() throws {
        let fixture = try CacheFixture(useSingleFamilyRefreshToken: true)
        try fixture.save(TokenResponses.aad(foci: "1"))
        #expect(try fixture.items(type: 2002).isEmpty)
        let frt = try fixture.item(account: userAccount, service: "familyrefreshtoken-1--", type: 2008)
        #expect(text(frt.generic) == "familyrefreshtoken-1-")
        let json = try stringMembers(try payload(frt))
        #expect(json["credential_type"] == "FamilyRefreshToken")
        #expect(json["client_id"] == IDs.appA)
        #expect(json["family_id"] == "1")
        #expect(json["realm"] == nil)
    }

    // MARK: - Atomicity

    /// Seeds a normal save, then saves a response whose access token is too large for the store:
    /// the whole batch must fail, the old (intersecting) access token must still be there, the
    /// refresh token must keep its old secret.
    func expectFailedSaveLeavesStoreUnchanged(_ fixture: CacheFixture) throws {
        try fixture.save(TokenResponses.aad(scope: "User.Read Mail.Read"))
        let before = try fixture.allItems().map { [$0.account, $0.service, text($0.generic) ?? "-", $0.data.base64EncodedString()] }
        #expect(before.count == 6)
        fixture.clock.advance(by: 60)
        let huge = String(repeating: "x", count: 8192)
        #expect(throws: (any Error).self) {
            try fixture.save(TokenResponses.aad(
                scope: "Mail.Read", accessToken: huge, refreshToken: "new-refresh-token", foci: "1"))
        }
        let after = try fixture.allItems().map { [$0.account, $0.service, text($0.generic) ?? "-", $0.data.base64EncodedString()] }
        #expect(Set(after) == Set(before))
        #expect(after.count == before.count)
    }

    @Test func saveIsOneAtomicBatchInMemory() throws {
        try expectFailedSaveLeavesStoreUnchanged(try CacheFixture(maximumDataSize: 4096))
    }

    @Test func saveIsOneAtomicBatchInSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try SQLiteStore(
            path: directory.path("cache.sqlite"), accessGroups: try AccessGroups([IDs.group]),
            options: .init(maximumDataSize: 4096))
        try expectFailedSaveLeavesStoreUnchanged(try CacheFixture(store: store))
    }

    // MARK: - Access-token replacement (§4.3 "On save")

    @Test func savingAnAccessTokenReplacesOnlyIntersectingOnesOfTheSameAccountClientRealmAndCloud() throws {
        // Kept: disjoint scopes; another realm; another client; another user; another cloud.
        try fixture.save(TokenResponses.aad(scope: "Calendars.Read", accessToken: "disjoint"))
        try fixture.save(
            TokenResponses.aad(tid: IDs.guestTenant, utid: IDs.homeTenant, scope: "Mail.Read", accessToken: "guest-tenant"),
            authority: "https://login.microsoftonline.com/\(IDs.guestTenant)")
        try fixture.save(TokenResponses.aad(scope: "Mail.Read", accessToken: "other-client"), clientId: IDs.appB)
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "other@contoso.com", scope: "Mail.Read", accessToken: "other-user"))
        try fixture.save(
            TokenResponses.aad(scope: "Mail.Read", accessToken: "china"),
            authority: "https://login.chinacloudapi.cn/common")
        // Replaced: overlapping scopes, written by this app under the preferred host and under an alias.
        try fixture.save(TokenResponses.aad(scope: "User.Read Mail.Read", accessToken: "overlapping"))
        let alias = Credential(
            credentialType: .accessToken, secret: "overlapping-alias", clientId: IDs.appA, homeAccountId: IDs.home,
            environment: "login.microsoftonline.com", realm: IDs.homeTenant, target: "MAIL.READ Files.Read",
            cachedAt: fixture.now, expiresOn: fixture.now + 3600)
        try fixture.put(alias)

        let saved = try fixture.save(TokenResponses.aad(scope: "Mail.Read Tasks.Read", accessToken: "new"))
        #expect(saved.replacedAccessTokens.count == 2)

        let secrets = Set(try fixture.items(type: 2001).map { try payload($0)["secret"]?.stringValue ?? "" })
        #expect(secrets == ["disjoint", "guest-tenant", "other-client", "other-user", "china", "new"])
        #expect(try fixture.store.items(matching: ItemQuery(account: "\(IDs.home)-login.microsoftonline.com")).isEmpty)
    }

    // MARK: - Account merge (§1.5 write semantics)

    @Test func accountMergeKeepsFieldsOnlyTheOldRecordHad() throws {
        try fixture.save(TokenResponses.aad(claims: ["given_name": "Cloud", "family_name": "User"]))
        // Another library added a field this engine does not know.
        let item = try fixture.item(account: userAccount, service: IDs.homeTenant, type: 1003)
        var old = try payload(item)
        old["custom_field"] = "kept"
        try fixture.put(StoreItem(
            accessGroup: IDs.group, account: item.account, service: item.service, generic: item.generic,
            type: 1003, data: JSONValue.object(old).serialized()))

        try fixture.save(TokenResponses.aad(claims: ["name": "Renamed User", "family_name": "Renamed"]))
        let merged = try stringMembers(try payload(try fixture.item(account: userAccount, service: IDs.homeTenant, type: 1003)))
        #expect(merged["custom_field"] == "kept")
        #expect(merged["given_name"] == "Cloud", "absent from the new response, kept from the old record")
        #expect(merged["family_name"] == "Renamed")
        #expect(merged["name"] == "Renamed User")
        #expect(try fixture.items(type: 1003).count == 1)
    }

    // MARK: - B2C, ADFS

    @Test func b2cAccountWithoutUsernameGetsThePlaceholder() throws {
        try fixture.save(
            TokenResponses.aad(username: nil, scope: "https://fabrikamb2c.onmicrosoft.com/api/read"),
            authority: "https://fabrikamb2c.b2clogin.com/tfp/fabrikamb2c.onmicrosoft.com/b2c_1_signin")
        let account = try #require(try fixture.items(type: 1003).first)
        #expect(text(account.generic) == "missing from the token response")
        #expect(try payload(account)["username"]?.stringValue == "Missing from the token response")
        #expect(account.account == "\(IDs.home)-fabrikamb2c.b2clogin.com")
        let at = try #require(try fixture.items(type: 2001).first)
        #expect(at.service == "accesstoken-\(IDs.appA)-\(IDs.homeTenant)-https://fabrikamb2c.onmicrosoft.com/api/read")
    }

    @Test func adfsAccountHasNoRealmAndTypeADFS() throws {
        let response = TokenResponse(
            accessToken: "adfs-at", refreshToken: "adfs-rt",
            idToken: TokenResponses.idToken(["sub": "ADFS-Subject-1", "upn": "user@contoso.com", "iss": "https://fs.contoso.com/adfs"]),
            scope: "openid https://api.contoso.com/read", expiresIn: 3600)
        let saved = try fixture.cache.save(response, for: try CacheFixture.request("https://fs.contoso.com/adfs"))
        #expect(saved.homeAccountId == "adfs-subject-1")
        #expect(saved.realm == nil)
        #expect(saved.environment == "fs.contoso.com")
        let account = try #require(try fixture.store.items(matching: ItemQuery(account: "adfs-subject-1-fs.contoso.com", type: 1004)).first)
        #expect(account.service == "")
        let json = try stringMembers(try payload(account))
        #expect(json["authority_type"] == "ADFS")
        #expect(json["realm"] == nil)
        #expect(json["username"] == "user@contoso.com")
        let at = try #require(try fixture.items(type: 2001).first)
        #expect(at.service == "accesstoken-\(IDs.appA)--openid https://api.contoso.com/read")
        #expect(try payload(at)["realm"] == nil)
    }

    // MARK: - PoP, requested claims

    @Test func popAccessTokenIsA2007ItemWithKidAndTokenTypeInTheService() throws {
        try fixture.save(TokenResponses.aad(scope: "User.Read", tokenType: "pop"), keyId: "eAi24Oezius79VTZt8lfXetRSz7lGkaJihXBEZB02uw")
        #expect(try fixture.items(type: 2001).isEmpty)
        let item = try fixture.item(
            account: userAccount, service: "accesstoken_with_authscheme-\(IDs.appA)-\(IDs.homeTenant)-user.read-pop", type: 2007)
        #expect(text(item.generic) == "accesstoken_with_authscheme-\(IDs.appA)-\(IDs.homeTenant)")
        let json = try stringMembers(try payload(item))
        #expect(json["credential_type"] == "AccessToken_With_AuthScheme")
        #expect(json["token_type"] == "pop")
        #expect(json["kid"] == "eAi24Oezius79VTZt8lfXetRSz7lGkaJihXBEZB02uw")
    }

    @Test func popAccessTokenWithoutKeyIdIsRejectedAndNothingIsWritten() throws {
        #expect(throws: TokenCacheError.self) {
            try fixture.save(TokenResponses.aad(tokenType: "pop"))
        }
        #expect(try fixture.allItems().isEmpty)
    }

    @Test func bearerTokenTypeIsNotWritten() throws {
        try fixture.save(TokenResponses.aad(tokenType: "Bearer"))
        let at = try #require(try fixture.items(type: 2001).first)
        #expect(try payload(at)["token_type"] == nil)
        #expect(at.service == atService)
    }

    @Test func requestedClaimsHashIsAppendedToTheService() throws {
        let claims = #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#
        try fixture.save(TokenResponses.aad(scope: "User.Read"), requestedClaims: claims)
        let at = try #require(try fixture.items(type: 2001).first)
        // first7(hex(SHA256(norm(claims)))), computed with sha256sum.
        #expect(at.service == "accesstoken-\(IDs.appA)-\(IDs.homeTenant)-user.read|5a6ffbe")
        #expect(text(at.generic) == "accesstoken-\(IDs.appA)-\(IDs.homeTenant)")
        #expect(try payload(at)["requested_claims"]?.stringValue == claims)
    }

    @Test func applicationIdentifierIsPartOfTheAccessTokenKey() throws {
        try fixture.save(TokenResponses.aad(scope: "User.Read"), applicationIdentifier: "Com.Contoso.App")
        let at = try #require(try fixture.items(type: 2001).first)
        #expect(at.service == "accesstoken-\(IDs.appA)-\(IDs.homeTenant)-com.contoso.app-user.read")
        #expect(text(at.generic) == "accesstoken-\(IDs.appA)-\(IDs.homeTenant)-com.contoso.app")
        #expect(try payload(at)["application_cache_identifier"]?.stringValue == "Com.Contoso.App")
    }
}
