import CacheStore
import Foundation
import Testing
import TokenCacheInterchange

@Suite struct KeychainItemsFormatTests {
    @Test func aDocumentThatCannotBeReadIsBadInput() {
        #expect(KeychainItemsFormatError.notJSON(source: "stdin").category == .badInput)
    }

    let items = [
        StoreItem(accessGroup: "com.microsoft.adalcache", account: "uid.utid-login.windows.net", service: "refreshtoken-c--",
                  generic: Data("refreshtoken-c-".utf8), type: 2002, data: Data(#"{"secret":"RT"}"#.utf8)),
        StoreItem(accessGroup: "com.microsoft.adalcache", account: "bXlmYWtl", service: "MSOpenTech.ADAL.1|a|b|c",
                  generic: Data([0xFF, 0x00]), type: nil, data: Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74])),
        StoreItem(accessGroup: "g", account: "", service: "appmetadata-c", generic: Data(), type: 3001, data: Data()),
        StoreItem(accessGroup: "g", account: "x", service: "y", generic: nil, type: UInt32.max, data: Data("z".utf8)),
    ]

    @Test func roundTripsEveryAttributeExactly() throws {
        let encoded = KeychainItemsFormat.encode(items)
        let decoded = try KeychainItemsFormat.decode(encoded, source: "test")
        #expect(decoded == items)
    }

    @Test func writesGenericAsTextOrBase64AndTypeOrNull() throws {
        let json = try #require(
            try JSONSerialization.jsonObject(with: KeychainItemsFormat.encode(items)) as? [[String: Any]])
        #expect(json[0]["generic"] as? String == "refreshtoken-c-")
        #expect((json[1]["generic"] as? [String: String])?["base64"] == "/wA=")
        #expect(json[1]["type"] is NSNull)
        #expect(json[2]["generic"] as? String == "")
        #expect(json[3]["generic"] is NSNull)
        #expect(json[0]["data"] as? String == Data(#"{"secret":"RT"}"#.utf8).base64EncodedString())
    }

    @Test func withoutDataOnlyTheSizeIsWritten() throws {
        let text = String(decoding: KeychainItemsFormat.encode(items, options: .init(includeData: false)), as: UTF8.self)
        #expect(!text.contains(Data(#"{"secret":"RT"}"#.utf8).base64EncodedString()))
        #expect(text.contains(#""data_size" : 15"#))
    }

    @Test(arguments: [
        (#"{"#, "test.json: not valid JSON"),
        (#"{}"#, "test.json: a keychain-items document is a JSON array of items"),
        (#"[1]"#, "test.json: item 0: the element must be"),
        (#"[{"access_group":"g","account":"a","service":"s","data":""},{"account":"a","service":"s","data":""}]"#,
         "test.json: item 1: field 'access_group' must be present"),
        (#"[{"access_group":"g","account":"a","service":"s","type":-1,"data":""}]"#,
         "test.json: item 0: field 'type' must be"),
        (#"[{"access_group":"g","account":"a","service":"s","type":true,"data":""}]"#,
         "test.json: item 0: field 'type' must be"),
        (#"[{"access_group":"g","account":"a","service":"s","data":"not base64!"}]"#,
         "test.json: item 0: field 'data' must be standard Base64"),
        (#"[{"access_group":"g","account":"a","service":"s","generic":{"base64":"%%"},"data":""}]"#,
         "test.json: item 0: field 'generic.base64' must be standard Base64"),
    ])
    func malformedInputNamesSourceItemAndField(input: String, expected: String) {
        do {
            _ = try KeychainItemsFormat.decode(Data(input.utf8), source: "test.json")
            Issue.record("decoded malformed input")
        } catch {
            #expect(error.description.hasPrefix(expected), "got: \(error.description)")
        }
    }

    @Test func errorsNeverQuoteData() {
        let secret = "c2VjcmV0LXJlZnJlc2gtdG9rZW4"  // valid-looking but not padded Base64
        let input = #"[{"access_group":"g","account":"a","service":"s","data":"\#(secret)"}]"#
        do {
            _ = try KeychainItemsFormat.decode(Data(input.utf8), source: "f")
            Issue.record("decoded unpadded Base64")
        } catch {
            #expect(!error.description.contains(secret))
        }
    }
}
