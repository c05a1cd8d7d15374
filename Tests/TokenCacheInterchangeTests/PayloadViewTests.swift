import CacheStore
import Foundation
import Testing
import TokenCacheInterchange
import TokenCacheSchema

@Suite struct PayloadViewTests {
    static let item = StoreItem(
        accessGroup: group, account: "uid.utid-env", service: "refreshtoken-c--", generic: Data("refreshtoken-c-".utf8),
        type: 2002, data: Data(#"{"secret":"RT-SECRET-1234","client_id":"c","nested":[{"access_token":"AT"}],"n":1}"#.utf8))

    @Test func secretsAreRedactedUnlessRevealed() throws {
        let view = PayloadView.object(for: Self.item, revealSecrets: false)
        #expect(view["payload"] == ["secret": "<redacted: 14 chars>", "client_id": "c", "nested": [["access_token": "<redacted: 2 chars>"]], "n": 1])
        #expect(view["data"] == nil)
        #expect(view["generic"] == "refreshtoken-c-")
        #expect(view["type"] == 2002)
        #expect(!PayloadView.prettyPrinted(.object(view)).contains("RT-SECRET"))

        let revealed = PayloadView.object(for: Self.item, revealSecrets: true)
        #expect(revealed["payload"]?.objectValue?["secret"] == "RT-SECRET-1234")
    }

    @Test func nonJSONPayloadsAndBinaryGenerics() throws {
        let item = StoreItem(accessGroup: group, account: "a", service: "s", generic: Data([0xFF, 0xFE]), data: Data("bplist00\u{0}".utf8))
        let hidden = PayloadView.object(for: item, revealSecrets: false)
        #expect(hidden["data"] == "<redacted: 9 bytes>")
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
}
