import CacheStore
import Foundation
import Testing

@testable import TokenCacheSchema

/// Values of the IdentityCore schema-validation suite (MSIDCacheSchemaValidationTests) and key tests.
enum Schema {
    static let uid = "9f4880d8-80ba-4c40-97bc-f7a23c703084"
    static let tid = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let homeAccountId = "\(uid).\(tid)"
    static let clientId = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let environment = "login.microsoftonline.com"
    static let account = "\(homeAccountId)-login.microsoftonline.com"
    static let scopes = "Calendars.Read openid profile Tasks.Read User.Read email"
    static let clientInfo = "eyJ1aWQiOiI5ZjQ4ODBkOC04MGJhLTRjNDAtOTdiYy1mN2EyM2M3MDMwODQiLCJ1dGlkIjoiZjY0NWFkOTItZTM4ZC00ZDFhLWI1MTAtZDFiMDlhNzRhOGNhIn0"
}

@Suite struct CredentialKeyTests {
    @Test func accessTokenKey() {
        let at = Credential(
            credentialType: .accessToken, secret: "at-secret", clientId: Schema.clientId,
            homeAccountId: Schema.homeAccountId, environment: Schema.environment, realm: Schema.tid,
            target: Schema.scopes, cachedAt: 1_700_000_000, expiresOn: 1_700_003_600, extendedExpiresOn: 1_700_007_200)
        let key = at.key
        #expect(key.account == "9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca-login.microsoftonline.com")
        #expect(key.service == "accesstoken-b6c69a37-df96-4db0-9088-2ab96e1d8215-f645ad92-e38d-4d1a-b510-d1b09a74a8ca-calendars.read openid profile tasks.read user.read email")
        #expect(key.genericString == "accesstoken-b6c69a37-df96-4db0-9088-2ab96e1d8215-f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        #expect(key.type == 2001)
    }

    @Test func popAccessTokenKeyHasTokenTypeSuffix() {
        let pop = Credential(
            credentialType: .accessTokenWithAuthScheme, secret: "pop", clientId: "client",
            homeAccountId: "uid.utid", environment: "login.microsoftonline.com", realm: "contoso.com",
            target: "user.read user.write", tokenType: "Pop", keyId: "eAi24Oezius79VTZt8lfXetRSz7lGkaJihXBEZB02uw")
        #expect(pop.key.service == "accesstoken_with_authscheme-client-contoso.com-user.read user.write-pop")
        #expect(pop.key.genericString == "accesstoken_with_authscheme-client-contoso.com")
        #expect(pop.key.type == 2007)
    }

    @Test func sshCertAccessTokenWithoutTokenTypeHasNoSuffix() {
        let ssh = Credential(
            credentialType: .accessTokenWithAuthScheme, secret: "cert", clientId: Schema.clientId,
            homeAccountId: Schema.homeAccountId, environment: Schema.environment, realm: Schema.tid,
            target: "https://pas.windows.net/CheckMyAccess/Linux/user_impersonation https://pas.windows.net/CheckMyAccess/Linux/.default")
        #expect(ssh.key.service == "accesstoken_with_authscheme-\(Schema.clientId)-\(Schema.tid)-https://pas.windows.net/checkmyaccess/linux/user_impersonation https://pas.windows.net/checkmyaccess/linux/.default")
    }

    @Test func b2cAccessTokenKeepsSlashesAndLowercases() {
        let b2c = Credential(
            credentialType: .accessToken, secret: "b2c", clientId: "0a7f52dd-260e-432f-94de-b47828c3f372",
            homeAccountId: "uid-b2c_1_signin.ba6c0d94-a8da-45b2-83ae-33871f9c2dd8", environment: "login.microsoftonline.com",
            realm: "ba6c0d94-a8da-45b2-83ae-33871f9c2dd8",
            target: "https://iosmsalb2c.onmicrosoft.com/webapitest/User.Read")
        #expect(b2c.key.service == "accesstoken-0a7f52dd-260e-432f-94de-b47828c3f372-ba6c0d94-a8da-45b2-83ae-33871f9c2dd8-https://iosmsalb2c.onmicrosoft.com/webapitest/user.read")
    }

    @Test func refreshTokenKeyHasNoRealmOrTarget() {
        // A realm or target in the payload (msal-node writes them) does not enter an RT's key.
        let rt = Credential(
            credentialType: .refreshToken, secret: "rt", clientId: Schema.clientId,
            homeAccountId: Schema.homeAccountId, environment: Schema.environment, realm: Schema.tid, target: "openid")
        #expect(rt.key.account == Schema.account)
        #expect(rt.key.service == "refreshtoken-b6c69a37-df96-4db0-9088-2ab96e1d8215--")
        #expect(rt.key.genericString == "refreshtoken-b6c69a37-df96-4db0-9088-2ab96e1d8215-")
        #expect(rt.key.type == 2002)
    }

    @Test func fociRefreshTokenIsKeyedByFamilyId() {
        let foci = Credential(
            credentialType: .refreshToken, secret: "frt", clientId: Schema.clientId,
            homeAccountId: Schema.homeAccountId, environment: Schema.environment, familyId: "1")
        #expect(foci.key.service == "refreshtoken-1--")
        #expect(foci.key.genericString == "refreshtoken-1-")
        #expect(foci.key.type == 2002)
        // ... while its payload keeps the writing app's client id.
        #expect(foci.jsonObject["client_id"] == .string(Schema.clientId))
    }

    @Test func blankFamilyIdDoesNotReplaceTheClientId() {
        let rt = Credential(credentialType: .refreshToken, secret: "rt", clientId: "CID", homeAccountId: "u.t", environment: "e", familyId: "")
        #expect(rt.key.service == "refreshtoken-cid--")
        #expect(rt.jsonObject["family_id"] == "")  // still written as read
    }

    @Test func familyRefreshTokenKey() {
        let frt = Credential(
            credentialType: .familyRefreshToken, secret: "frt", clientId: Schema.clientId,
            homeAccountId: Schema.homeAccountId, environment: Schema.environment, familyId: "1")
        #expect(frt.key.service == "familyrefreshtoken-1--")
        #expect(frt.key.genericString == "familyrefreshtoken-1-")
        #expect(frt.key.type == 2008)
    }

    @Test func idTokenKeyHasRealmButNoTarget() {
        let id = Credential(
            credentialType: .idToken, secret: "jwt", clientId: Schema.clientId,
            homeAccountId: Schema.homeAccountId, environment: Schema.environment, realm: Schema.tid, target: "openid")
        #expect(id.key.service == "idtoken-b6c69a37-df96-4db0-9088-2ab96e1d8215-f645ad92-e38d-4d1a-b510-d1b09a74a8ca-")
        #expect(id.key.genericString == "idtoken-b6c69a37-df96-4db0-9088-2ab96e1d8215-f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        #expect(id.key.type == 2003)
        let v1 = Credential(credentialType: .v1IdToken, secret: "jwt", clientId: "cid", homeAccountId: "u.t", environment: "e", realm: "tid")
        #expect(v1.key.service == "v1idtoken-cid-tid-")
        #expect(v1.key.type == 2006)
    }

    @Test func upperCaseInputIsLowercasedInKeysOnly() {
        let at = Credential(
            credentialType: .accessToken, secret: "s", clientId: "CLIENT", homeAccountId: "UID.utid",
            environment: "LOGIN.microsoftonline.com", realm: "CONTOSO.COM", target: "User.read User.write")
        #expect(at.key.account == "uid.utid-login.microsoftonline.com")
        #expect(at.key.service == "accesstoken-client-contoso.com-user.read user.write")
        #expect(at.key.genericString == "accesstoken-client-contoso.com")
        #expect(at.jsonObject["target"] == .string("User.read User.write"))
        #expect(at.jsonObject["client_id"] == .string("CLIENT"))
    }

    @Test func applicationIdentifierJoinsTheCredentialId() {
        let at = Credential(
            credentialType: .accessToken, secret: "s", clientId: "client", homeAccountId: "uid.utid",
            environment: "login.microsoftonline.com", realm: "contoso.com", target: "user.read user.write",
            applicationIdentifier: "app.bundle.id")
        #expect(at.key.service == "accesstoken-client-contoso.com-app.bundle.id-user.read user.write")
        #expect(at.key.genericString == "accesstoken-client-contoso.com-app.bundle.id")
        #expect(at.jsonObject["application_cache_identifier"] == .string("app.bundle.id"))
    }

    @Test func requestedClaimsAddAHashSuffix() {
        // Expected value computed outside Swift:
        //   printf '%s' '{"access_token":{"xms_cc":{"values":["cp1"]}}}' | sha256sum  → 5a6ffbeb32e5…
        let claims = "  {\"Access_Token\":{\"XMS_CC\":{\"values\":[\"CP1\"]}}}\n"
        #expect(requestedClaimsHash(claims) == "5a6ffbe")
        let at = Credential(
            credentialType: .accessToken, secret: "s", clientId: "client", homeAccountId: "uid.utid",
            environment: "login.microsoftonline.com", realm: "contoso.com", target: "user.read",
            requestedClaims: claims)
        #expect(at.key.service == "accesstoken-client-contoso.com-user.read|5a6ffbe")
        #expect(at.key.genericString == "accesstoken-client-contoso.com")
        // printf '%s' '{"id_token":{"auth_time":{"essential":true}}}' | sha256sum → f2ab4713c95a…
        #expect(requestedClaimsHash(#"{"id_token":{"auth_time":{"essential":true}}}"#) == "f2ab471")
        // Blank claims add nothing.
        var blank = at
        blank.requestedClaims = "  "
        #expect(blank.key.service == "accesstoken-client-contoso.com-user.read")
    }

    @Test func anExtendedCacheKeyMakesAnItemOfItsOwn() {
        let plain = Credential(
            credentialType: .accessToken, secret: "s", clientId: "client", homeAccountId: "",
            environment: "login.microsoftonline.com", realm: "contoso.com", target: "api://x/.default")
        var extended = plain
        extended.extCacheKey = "ZG7kq-ABC_def"
        #expect(plain.key.service == "accesstoken-client-contoso.com-api://x/.default")
        #expect(extended.key.service == "accesstoken-client-contoso.com-api://x/.default|ext:zg7kq-abc_def")
        #expect(extended.key.genericString == plain.key.genericString)
        #expect(extended.key.account == plain.key.account)
        #expect(extended.jsonObject["ext_cache_key"] == .string("ZG7kq-ABC_def"))
        // Blank keys add nothing; refresh and ID tokens are never keyed by it.
        extended.extCacheKey = " "
        #expect(extended.key.service == plain.key.service)
        var refresh = Credential(credentialType: .refreshToken, secret: "s", clientId: "client", homeAccountId: "u.t", environment: "e")
        let refreshService = refresh.key.service
        refresh.extCacheKey = "k"
        #expect(refresh.key.service == refreshService)
    }

    @Test func bearerTokenTypeIsNeitherKeyedNorWritten() {
        let at = Credential(credentialType: .accessToken, secret: "s", clientId: "c", homeAccountId: "u.t", environment: "e", realm: "r", target: "t", tokenType: "Bearer")
        #expect(at.key.service == "accesstoken-c-r-t")
        #expect(at.jsonObject["token_type"] == nil)
    }

    @Test func longValuesAreNotTruncated() {
        let scopes = (0..<400).map { "https://api.example.com/scope\($0)" }.joined(separator: " ")
        let at = Credential(credentialType: .accessToken, secret: "s", clientId: "c", homeAccountId: "u.t", environment: "e", realm: "r", target: scopes)
        #expect(at.key.service == "accesstoken-c-r-" + scopes)
    }

    @Test func storeItemCarriesTheKeyAndPayload() throws {
        let rt = Credential(credentialType: .refreshToken, secret: "rt", clientId: "cid", homeAccountId: "u.t", environment: "login.windows.net")
        let item = try rt.storeItem(accessGroup: "com.microsoft.adalcache")
        #expect(item.accessGroup == "com.microsoft.adalcache")
        #expect(item.account == "u.t-login.windows.net")
        #expect(item.service == "refreshtoken-cid--")
        #expect(item.generic == Data("refreshtoken-cid-".utf8))
        #expect(item.type == 2002)
        #expect(item.data == rt.jsonData)
    }
}

@Suite struct CredentialPayloadTests {
    @Test func accessTokenPayloadHasTheAssertedKeysAllStrings() throws {
        let at = Credential(
            credentialType: .accessToken, secret: "at-secret", clientId: Schema.clientId,
            homeAccountId: Schema.homeAccountId, environment: Schema.environment, realm: Schema.tid,
            target: Schema.scopes, cachedAt: 1_700_000_000, expiresOn: 1_700_003_600, extendedExpiresOn: 1_700_007_200)
        let object = try payloadObject(at.jsonData)
        #expect(Set(object.keys) == ["secret", "target", "extended_expires_on", "credential_type", "environment", "realm", "expires_on", "cached_at", "client_id", "home_account_id"])
        #expect(allScalarsAreStrings(object))
        #expect(object["credential_type"] == "AccessToken")
        #expect(object["expires_on"] == "1700003600")
        #expect(object["cached_at"] == "1700000000")
        #expect(object["extended_expires_on"] == "1700007200")
        #expect(object["target"] == .string(Schema.scopes))
        // Compact, sorted by key, slashes unescaped.
        #expect(at.jsonData.utf8String.hasPrefix(#"{"cached_at":"1700000000","client_id":""#))
        #expect(!at.jsonData.utf8String.contains(" \""))
        // A second reader agrees.
        let foundation = try foundationObject(at.jsonData)
        #expect(foundation["secret"] as? String == "at-secret")
    }

    @Test func popPayloadAddsTokenTypeAndKid() throws {
        let pop = Credential(
            credentialType: .accessTokenWithAuthScheme, secret: "pop", clientId: Schema.clientId,
            homeAccountId: Schema.homeAccountId, environment: Schema.environment, realm: Schema.tid, target: Schema.scopes,
            cachedAt: 1, expiresOn: 2, extendedExpiresOn: 3, tokenType: "Pop", keyId: "eAi24Oezius79VTZt8lfXetRSz7lGkaJihXBEZB02uw")
        let object = try payloadObject(pop.jsonData)
        #expect(object["credential_type"] == "AccessToken_With_AuthScheme")
        #expect(object["token_type"] == "Pop")
        #expect(object["kid"] == "eAi24Oezius79VTZt8lfXetRSz7lGkaJihXBEZB02uw")
        #expect(object.count == 12)
        #expect(allScalarsAreStrings(object))
    }

    @Test func idTokenAndRefreshTokenPayloads() throws {
        let id = Credential(credentialType: .idToken, secret: "a.b.c", clientId: Schema.clientId, homeAccountId: Schema.homeAccountId, environment: Schema.environment, realm: Schema.tid)
        #expect(Set(try payloadObject(id.jsonData).keys) == ["secret", "credential_type", "environment", "home_account_id", "realm", "client_id"])
        let rt = Credential(credentialType: .refreshToken, secret: "rt", clientId: Schema.clientId, homeAccountId: Schema.homeAccountId, environment: Schema.environment)
        #expect(Set(try payloadObject(rt.jsonData).keys) == ["client_id", "secret", "environment", "credential_type", "home_account_id"])
        var foci = rt
        foci.familyId = "1"
        let fociObject = try payloadObject(foci.jsonData)
        #expect(Set(fociObject.keys) == ["client_id", "secret", "environment", "credential_type", "home_account_id", "family_id"])
        #expect(fociObject["family_id"] == "1")
    }

    @Test func unknownFieldSurvivesDecodeEncodeAndNilRemovesKnownField() throws {
        let json = #"{"credential_type":"AccessToken","client_id":"cid","secret":"s","target":"t","realm":"r","environment":"e","home_account_id":"u.t","expires_on":"100","refresh_on":"50","enrollment_id":"enroll","redirect_uri":"msauth://x","spe_info":"I","test":"test2","nested":{"b":[1,2]}}"#
        var credential = try Credential(jsonData: Data(json.utf8))
        #expect(credential.enrollmentId == "enroll")
        #expect(credential.redirectUri == "msauth://x")
        #expect(credential.speInfo == "I")
        #expect(credential.refreshOn == 50)
        #expect(credential.additionalFields["test"] == "test2")
        #expect(credential.additionalFields["secret"] == nil)  // known fields are not duplicated
        credential.expiresOn = 200
        credential.target = nil
        let object = try payloadObject(credential.jsonData)
        #expect(object["test"] == "test2")
        #expect(object["nested"] == ["b": [1, 2]])
        #expect(object["expires_on"] == "200")
        #expect(object["target"] == nil)
        #expect(try Credential(jsonData: credential.jsonData) == credential)
    }

    @Test func readsNumbersNullsAndDecimalStrings() throws {
        let json = #"{"credential_type":"AccessToken","secret":"s","client_id":"c","cached_at":1700000000,"expires_on":"1548804634.95","extended_expires_on":null,"refresh_on":1700001800.7,"realm":null,"family_id":1}"#
        let credential = try Credential(jsonData: Data(json.utf8))
        #expect(credential.cachedAt == 1_700_000_000)
        #expect(credential.expiresOn == 1_548_804_634)
        #expect(credential.extendedExpiresOn == nil)
        #expect(credential.refreshOn == 1_700_001_800)
        #expect(credential.realm == nil)
        #expect(credential.familyId == "1")
        let object = try payloadObject(credential.jsonData)
        #expect(object["cached_at"] == "1700000000")  // written back as a string
        #expect(object["expires_on"] == "1548804634")
        #expect(object["extended_expires_on"] == nil)
        #expect(object["realm"] == nil)
        #expect(allScalarsAreStrings(object))
    }

    @Test func extExpiresOnIsAFallbackKeptInSync() throws {
        let legacyOnly = try Credential(jsonData: Data(#"{"credential_type":"AccessToken","secret":"s","ext_expires_on":"23456"}"#.utf8))
        #expect(legacyOnly.extendedExpiresOn == 23456)
        let both = try Credential(jsonData: Data(#"{"credential_type":"AccessToken","secret":"s","extended_expires_on":"111","ext_expires_on":"222"}"#.utf8))
        #expect(both.extendedExpiresOn == 111)
        let zero = try Credential(jsonData: Data(#"{"credential_type":"AccessToken","secret":"s","extended_expires_on":"0","ext_expires_on":"333"}"#.utf8))
        #expect(zero.extendedExpiresOn == 333)
        var updated = legacyOnly
        updated.extendedExpiresOn = 99999
        let object = try payloadObject(updated.jsonData)
        #expect(object["extended_expires_on"] == "99999")
        #expect(object["ext_expires_on"] == "99999")
        // Not added where it was not present.
        #expect(try payloadObject(both.jsonData)["ext_expires_on"] == "111")
        let fresh = Credential(credentialType: .accessToken, secret: "s", extendedExpiresOn: 5)
        #expect(fresh.jsonObject["ext_expires_on"] == nil)
    }

    @Test func keyIdIsReadFromKidKeyIdOrKeyidAndWrittenAsKid() throws {
        for (field, value) in [("kid", "k1"), ("key_id", "k2"), ("keyid", "k3")] {
            let json = #"{"credential_type":"AccessToken_With_AuthScheme","secret":"s","token_type":"pop","\#(field)":"\#(value)"}"#
            let credential = try Credential(jsonData: Data(json.utf8))
            #expect(credential.keyId == value)
            let object = try payloadObject(credential.jsonData)
            #expect(object["kid"] == .string(value))
            #expect(object.count == 4)  // kid, credential_type, secret, token_type
        }
        let all = try Credential(jsonData: Data(#"{"secret":"s","keyid":"c","key_id":"b","kid":"a"}"#.utf8))
        #expect(all.keyId == "a")
    }

    @Test func credentialTypeIsCaseInsensitiveAndUnknownNamesArePreserved() throws {
        let go = try Credential(jsonData: Data(#"{"credential_type":"IDToken","secret":"s"}"#.utf8))
        #expect(go.credentialType == .idToken)
        #expect(go.jsonObject["credential_type"] == "IdToken")
        let ext = try Credential(jsonData: Data(#"{"credential_type":"ATExt","secret":"s"}"#.utf8))
        #expect(ext.credentialType == .other)
        #expect(ext.jsonObject["credential_type"] == "ATExt")
        let missing = try Credential(jsonData: Data(#"{"secret":"s"}"#.utf8), typeHint: .refreshToken)
        #expect(missing.credentialType == .refreshToken)
    }

    @Test func tombstone() throws {
        let credential = try Credential(jsonData: Data(#"{"credential_type":"RefreshToken","secret":"<tombstone>"}"#.utf8))
        #expect(credential.isTombstone)
        #expect(!Credential(credentialType: .refreshToken, secret: "rt").isTombstone)
    }

    @Test func missingSecretIsAnError() {
        #expect(throws: SchemaError.missingField("secret", item: nil)) {
            try Credential(jsonData: Data(#"{"credential_type":"AccessToken","client_id":"c"}"#.utf8))
        }
        #expect(throws: SchemaError.missingField("secret", item: nil)) {
            try Credential(jsonData: Data(#"{"credential_type":"AccessToken","secret":null}"#.utf8))
        }
    }

    @Test func wrongKindsInKnownFieldsAreErrorsNamingTheField() {
        #expect(throws: SchemaError.invalidField("target", reason: "must be a string, found an array", item: nil)) {
            try Credential(jsonData: Data(#"{"secret":"s","target":["a","b"]}"#.utf8))
        }
        do {
            _ = try Credential(jsonData: Data(#"{"secret":"top-secret-value","expires_on":"soon"}"#.utf8))
            Issue.record("accepted a non-numeric expires_on")
        } catch {
            #expect(error.description.contains("'expires_on'"))
            #expect(!error.description.contains("soon"))
            #expect(!error.description.contains("top-secret-value"))
        }
    }
}
