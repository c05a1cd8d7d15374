import CacheStore
import Foundation
import Testing

import TokenCacheJSON
@testable import TokenCacheSchema

@Suite struct AccountTests {
    static let schemaAccount = Account(
        authorityType: .mssts, homeAccountId: Schema.homeAccountId, environment: Schema.environment, realm: Schema.tid,
        localAccountId: Schema.uid, username: "IDLAB@msidlab4.onmicrosoft.com", name: "Cloud IDLAB Basic User",
        clientInfo: Schema.clientInfo)

    @Test func key() {
        let key = Self.schemaAccount.key
        #expect(key.account == "9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca-login.microsoftonline.com")
        #expect(key.service == "f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        #expect(key.genericString == "idlab@msidlab4.onmicrosoft.com")
        #expect(key.type == 1003)
    }

    @Test func keyWithoutRealmOrUsername() {
        let account = Account(authorityType: .adfs, homeAccountId: "unZYjm1NugFLhP1l338bxhRYyHbtCYOWX1P+F2fCsiQ=", environment: "fs.msidlab8.com")
        #expect(account.key.account == "unzyjm1nugflhp1l338bxhryyhbtcyowx1p+f2fcsiq=-fs.msidlab8.com")
        #expect(account.key.service == "")
        #expect(account.key.generic == nil)
        #expect(account.key.type == 1004)
    }

    @Test func payloadHasTheAssertedKeysAllStrings() throws {
        let object = try payloadObject(Self.schemaAccount.jsonData)
        #expect(Set(object.keys) == ["local_account_id", "home_account_id", "username", "environment", "realm", "authority_type", "name", "client_info"])
        #expect(object["authority_type"] == "MSSTS")
        #expect(object["username"] == "IDLAB@msidlab4.onmicrosoft.com")  // case kept in the payload
        #expect(allScalarsAreStrings(object))
    }

    @Test func unknownFieldsSurviveAndKnownNilsDisappear() throws {
        let json = #"{"authority_type":"MSSTS","home_account_id":"u.t","environment":"e","realm":"r","username":"a@b","given_name":null,"alternative_account_id":"alt","middle_name":"M","wam_account_ids":{"cid":"wamId1"},"account_source":"device_code_flow","test":"test2"}"#
        var account = try Account(jsonData: Data(json.utf8))
        #expect(account.givenName == nil)
        #expect(account.alternativeAccountId == "alt")
        #expect(account.middleName == "M")
        #expect(account.additionalFields["wam_account_ids"] == ["cid": "wamId1"])
        account.middleName = nil
        let object = try payloadObject(account.jsonData)
        #expect(object["test"] == "test2")
        #expect(object["account_source"] == "device_code_flow")
        #expect(object["wam_account_ids"] == ["cid": "wamId1"])
        #expect(object["middle_name"] == nil)
        #expect(object["given_name"] == nil)
        #expect(try Account(jsonData: account.jsonData) == account)
    }

    @Test func authorityTypeIsRequiredAndOtherIsRejected() {
        #expect(throws: SchemaError.missingField("authority_type", item: nil)) {
            try Account(jsonData: Data(#"{"home_account_id":"u.t"}"#.utf8))
        }
        #expect(throws: SchemaError.self) { try Account(jsonData: Data(#"{"authority_type":"Other"}"#.utf8)) }
        #expect(throws: SchemaError.self) { try Account(jsonData: Data(#"{"authority_type":"authority type"}"#.utf8)) }
        #expect((try? Account(jsonData: Data(#"{"authority_type":"mssts"}"#.utf8)))?.authorityType == .mssts)
        #expect(throws: SchemaError.self) { try Account(authorityType: .other).storeItem(accessGroup: "g") }
    }
}

@Suite struct AppMetadataTests {
    @Test func fociKeyAndPayload() throws {
        let metadata = AppMetadata(clientId: Schema.clientId, environment: "login.microsoftonline.com", familyId: "1")
        let item = try metadata.storeItem(accessGroup: "com.microsoft.adalcache")
        #expect(item.account == "login.microsoftonline.com")
        #expect(item.service == "appmetadata-b6c69a37-df96-4db0-9088-2ab96e1d8215")
        #expect(item.generic == Data("1".utf8))
        #expect(item.type == 3001)
        let object = try payloadObject(item.data)
        #expect(object == ["client_id": .string(Schema.clientId), "environment": "login.microsoftonline.com", "family_id": "1"])
    }

    @Test func environmentIsNotNormalizedButClientIdIs() {
        let metadata = AppMetadata(clientId: " CLIENT ", environment: "Login.Windows.NET")
        #expect(metadata.key.account == "Login.Windows.NET")
        #expect(metadata.key.service == "appmetadata-client")
    }

    @Test func nonFociHasEmptyFamilyIdAndEmptyGeneric() throws {
        let metadata = AppMetadata(clientId: "cid", environment: "login.windows.net", familyId: "")
        #expect(metadata.key.generic == Data())
        #expect(metadata.key.generic != nil)
        #expect(try payloadObject(metadata.jsonData)["family_id"] == "")
        let unset = AppMetadata(clientId: "cid", environment: "login.windows.net", familyId: nil)
        #expect(unset.key.generic == nil)
        #expect(unset.jsonObject["family_id"] == nil)
    }

    @Test func unknownFieldsSurvive() throws {
        let metadata = try AppMetadata(jsonData: Data(#"{"client_id":"cid","environment":"e","family_id":null,"test":"test2"}"#.utf8))
        #expect(metadata.familyId == nil)
        #expect(try payloadObject(metadata.jsonData) == ["client_id": "cid", "environment": "e", "test": "test2"])
    }
}

@Suite struct AccountMetadataTests {
    static let json = #"""
    {"client_id":"MyClient","principal_home_account_id":"uid.utid","principal_username":"user@contoso.com","principal_account_environment":"login.microsoftonline.com","unknown":"dropped","account_metadata_map":{"uid.utid":{"client_id":"MyClient","home_account_id":"uid.utid","sign_in_state":"signed_in","athority_map":{"URLMap-":{"https:\/\/login.microsoftonline.com\/common":"https:\/\/login.microsoftonline.com\/contoso.com"},"URLMap-instance_aware=YES":{"https://login.microsoftonline.com/common":"https://login.microsoftonline.de/contoso.com"}}}}}
    """#

    @Test func keyUsesTheClientIdAsGiven() throws {
        let metadata = try AccountMetadata(jsonData: Data(Self.json.utf8))
        let item = try metadata.storeItem(accessGroup: "g")
        #expect(item.account == "authority_map")
        #expect(item.service == "MyClient")
        #expect(item.generic == nil)
        #expect(item.type == 5001)
    }

    @Test func decodesTheMapsAndDropsUnknownKeys() throws {
        let metadata = try AccountMetadata(jsonData: Data(Self.json.utf8))
        #expect(metadata.principalUsername == "user@contoso.com")
        let entry = try #require(metadata.accounts["uid.utid"])
        #expect(entry.signInState == .signedIn)
        #expect(entry.authorityMap[AccountMetadata.urlMapKey] == ["https://login.microsoftonline.com/common": "https://login.microsoftonline.com/contoso.com"])
        #expect(entry.authorityMap[AccountMetadata.instanceAwareURLMapKey]?["https://login.microsoftonline.com/common"] == "https://login.microsoftonline.de/contoso.com")
        let object = try payloadObject(metadata.jsonData)
        #expect(object["unknown"] == nil)
        #expect(Set(object.keys) == ["client_id", "principal_home_account_id", "principal_username", "principal_account_environment", "account_metadata_map"])
        let written = try #require(object["account_metadata_map"]?.objectValue?["uid.utid"]?.objectValue)
        #expect(Set(written.keys) == ["client_id", "home_account_id", "sign_in_state", "athority_map"])
        #expect(try AccountMetadata(jsonData: metadata.jsonData) == metadata)
    }

    @Test func signingOutClearsTheURLMaps() throws {
        var metadata = try AccountMetadata(jsonData: Data(Self.json.utf8))
        metadata.setSignInState(.signedOut, homeAccountId: "uid.utid")
        let entry = try #require(metadata.accounts["uid.utid"])
        #expect(entry.signInState == .signedOut)
        #expect(entry.authorityMap.isEmpty)
        let written = try payloadObject(metadata.jsonData)["account_metadata_map"]?.objectValue?["uid.utid"]?.objectValue
        #expect(written?["sign_in_state"] == "signed_out")
        #expect(written?["athority_map"] == .object(JSONObject()))
    }

    @Test func authorityMappingsOnlyWhenTheURLChanges() {
        var metadata = AccountMetadata(clientId: "cid")
        metadata.setAuthority("https://login.microsoftonline.com/common", for: "https://login.microsoftonline.com/common", homeAccountId: "u.t")
        #expect(metadata.accounts["u.t"]?.authorityMap.isEmpty == true)
        metadata.setAuthority("https://login.microsoftonline.com/tid", for: "https://login.microsoftonline.com/common", homeAccountId: "u.t", instanceAware: true)
        #expect(metadata.accounts["u.t"]?.authorityMap == [AccountMetadata.instanceAwareURLMapKey: ["https://login.microsoftonline.com/common": "https://login.microsoftonline.com/tid"]])
        #expect(metadata.accounts["u.t"]?.signInState == .signedIn)
    }

    @Test func malformedShapesAreErrors() {
        #expect(throws: SchemaError.missingField("client_id", item: nil)) { try AccountMetadata(jsonData: Data("{}".utf8)) }
        #expect(throws: SchemaError.self) {
            try AccountMetadata(jsonData: Data(#"{"client_id":"c","account_metadata_map":{"u.t":"signed_in"}}"#.utf8))
        }
        #expect(throws: SchemaError.self) {
            try AccountMetadata(jsonData: Data(#"{"client_id":"c","account_metadata_map":{"u.t":{"athority_map":{"URLMap-":{"a":1}}}}}"#.utf8))
        }
        let unknownState = try? AccountMetadata(jsonData: Data(#"{"client_id":"c","account_metadata_map":{"u.t":{"sign_in_state":"maybe"}}}"#.utf8))
        #expect(unknownState?.accounts["u.t"]?.signInState == .unknown)
        #expect(unknownState?.accounts["u.t"]?.homeAccountId == "u.t")
    }
}
