import CacheStore
import Foundation
import Testing
import TokenCacheDisplay
import TokenCacheJSON
import TokenCacheSchema

private let group = "com.microsoft.adalcache"

@Suite struct PayloadViewTests {
    static let item = StoreItem(
        accessGroup: group, account: "uid.utid-env", service: "refreshtoken-c--", generic: Data("refreshtoken-c-".utf8),
        type: 2002, data: Data(#"{"secret":"RT-SECRET-1234","client_id":"c","nested":[{"access_token":"AT"}],"n":1}"#.utf8))

    @Test func secretsAreRedactedUnlessRevealed() throws {
        let view = PayloadView.object(for: Self.item, revealSecrets: false)
        // Allow-listed members only: `nested` and `n` are not known to be non-secret.
        #expect(view["payload"] == ["secret": "<redacted: 14 chars>", "client_id": "c", "nested": "<redacted: an array of 1>", "n": "<redacted: a number>"])
        #expect(view["data"] == nil)
        #expect(view["generic"] == "refreshtoken-c-")
        #expect(view["type"] == 2002)
        #expect(!PayloadView.prettyPrinted(.object(view)).contains("RT-SECRET"))

        let revealed = PayloadView.object(for: Self.item, revealSecrets: true)
        #expect(revealed["payload"]?.objectValue?["secret"] == "RT-SECRET-1234")
    }

    /// An account's own sign-in state (tokencache's type 9001) shows as the account-metadata entry it
    /// holds, with its environment; anything else in it is redacted.
    @Test func anAccountsSignInStateIsShown() throws {
        let entry = AccountMetadata.Entry(
            clientId: "c", homeAccountId: "uid.utid", signInState: .signedIn,
            authorityMap: [AccountMetadata.urlMapKey: ["https://login.microsoftonline.com/common": "https://login.microsoftonline.com/utid"]])
        var item = try AccountSignIn(entry: entry, environment: "login.windows.net").storeItem(accessGroup: group)
        var payload = try #require(try JSONValue.parse(item.data).objectValue)
        payload["refresh_token"] = "RT-SECRET"
        item.data = JSONValue.object(payload).serialized()
        let shown = try #require(PayloadView.object(for: item, revealSecrets: false)["payload"]?.objectValue)
        #expect(shown["sign_in_state"] == "signed_in")
        #expect(shown["environment"] == "login.windows.net")
        #expect(shown["athority_map"]?.objectValue?[AccountMetadata.urlMapKey] == ["https://login.microsoftonline.com/common": "https://login.microsoftonline.com/utid"])
        #expect(shown["refresh_token"]?.stringValue?.hasPrefix("<redacted") == true)
    }

    @Test func nonJSONPayloadsAndBinaryGenerics() throws {
        let item = StoreItem(accessGroup: group, account: "a", service: "s", generic: Data([0xFF, 0xFE]), data: Data("bplist00\u{0}".utf8))
        let hidden = PayloadView.object(for: item, revealSecrets: false)
        #expect(hidden["data"]?.stringValue?.hasPrefix("<redacted: 9 bytes, sha256 ") == true)
        #expect(hidden["payload"] == nil)
        #expect(hidden["generic"] == ["base64": "//4="])
        #expect(hidden["type"] == .null)
        #expect(PayloadView.object(for: item, revealSecrets: true)["data"] == .string(item.data.base64EncodedString()))
    }

    @Test func prettyPrintingParsesBack() throws {
        let value: JSONValue = ["a": [1, ["b": nil, "c": "x\"y"]], "e": [], "f": .object(JSONObject())]
        let text = PayloadView.prettyPrinted(value)
        #expect(text.hasSuffix("}\n"))
        #expect(text.contains("\n  \"a\": [\n    1,"))
        #expect(try JSONValue.parse(text, allowTrailingCommas: false) == value)
    }

    /// Members that hold secrets under names or types a deny-list would miss.
    @Test("redaction by allow-list: unknown members, secrets of any JSON type, bare payloads")
    func allowList() throws {
        func view(_ json: String, type: UInt32? = 2002) -> String {
            let item = StoreItem(accessGroup: group, account: "a", service: "s", type: type, data: Data(json.utf8))
            return PayloadView.prettyPrinted(.object(PayloadView.object(for: item, revealSecrets: false)))
        }
        let leaks = [
            (#"{"credential_type":"RefreshToken","session_key":"SESSION-KEY-VALUE"}"#, "SESSION-KEY-VALUE"),
            (#"{"credential_type":"RefreshToken","secret":918273645546372819}"#, "918273645546372819"),
            (#"{"credential_type":"RefreshToken","secret":["ARRAY-SECRET"]}"#, "ARRAY-SECRET"),
            (#"{"credential_type":"RefreshToken","secret":{"value":"OBJECT-SECRET"}}"#, "OBJECT-SECRET"),
            (#""BARE-STRING-PAYLOAD""#, "BARE-STRING-PAYLOAD"),
            (#"123456789012345678"#, "123456789012345678"),
            (#"["ARRAY-PAYLOAD"]"#, "ARRAY-PAYLOAD"),
        ]
        for (json, secret) in leaks {
            #expect(!view(json).contains(secret), "\(json)")
            #expect(!view(json, type: nil).contains(secret), "\(json), no type")
            #expect(!view(json, type: 1003).contains(secret), "\(json), as an account")
        }
        // Known non-secret members stay readable, whatever their type.
        let account = view(#"{"authority_type":"MSSTS","username":"user@contoso.com","wam_account_ids":{"c":"w"}}"#, type: 1003)
        #expect(account.contains("user@contoso.com") && account.contains("\"w\""))
    }

    @Test("a legacy ADAL archive: the session key and ID token are redacted, the user id is shown")
    func adalArchive() throws {
        let archived: JSONObject = [
            "$class": "ADTokenCacheStoreItem", "clientId": "c", "sessionKey": ["base64": "U0VTU0lPTi1LRVk="],
            "refreshToken": "RT-VALUE", "userInformation": ["$class": "ADUserInformation", "userId": "user@contoso.com", "rawIdToken": "IDT-VALUE"],
        ]
        let redacted = JSONValue.object(RedactionAllowList.redactArchive(archived))
        let text = PayloadView.prettyPrinted(redacted)
        #expect(!text.contains("U0VTU0lPTi1LRVk=") && !text.contains("RT-VALUE") && !text.contains("IDT-VALUE"))
        #expect(text.contains("user@contoso.com") && text.contains("\"c\""))
    }
}
