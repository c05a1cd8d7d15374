import Foundation
import TestSupport
import Testing

@testable import TokenCacheJSON

@Suite struct JSONValueTests {
    @Test func numbersRoundTripExactly() throws {
        let text = #"{"a":1700000000,"b":-62135596800,"c":1548804634.05,"d":1.50,"e":1e3,"f":-0,"g":123456789012345678901234567890}"#
        let value = try JSONValue.parse(text)
        #expect(value.serializedString() == text)
        let object = try #require(value.objectValue)
        guard case .number(let big) = object["g"] else { Issue.record("g is not a number"); return }
        #expect(big.text == "123456789012345678901234567890")
        guard case .number(let fraction) = object["c"] else { Issue.record("c is not a number"); return }
        #expect(fraction.truncatedInt64 == 1548804634)
    }

    @Test func objectsKeepTheirOrderUnlessSorted() throws {
        let value = try JSONValue.parse(#"{"z":"1","a":{"y":true,"b":null},"m":[1,"x",false]}"#)
        #expect(value.serializedString() == #"{"z":"1","a":{"y":true,"b":null},"m":[1,"x",false]}"#)
        #expect(value.serializedString(sortingKeys: true) == #"{"a":{"b":null,"y":true},"m":[1,"x",false],"z":"1"}"#)
    }

    /// Sorted by UTF-8 bytes, as unsigned: prefixes first, upper case before lower, non-ASCII
    /// (lead bytes 0xC3, 0xF0) after ASCII; the same whether the members come in order or not.
    @Test func sortedMembersFollowTheKeysBytes() {
        let keys = ["b", "", "a", "ab", "aB", "A", "é", "e", "😀", "z", "a\u{0}", "_", "~", "ÿ", "client_id", "client_info", "client"]
        let reference = keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        for order in [keys, reference, reference.reversed()] {
            let object = JSONObject(order.enumerated().map { ($1, JSONValue.string(String($0))) })
            #expect(object.sortedMembers.map(\.key) == reference)
        }
        #expect(reference.prefix(4) == ["", "A", "_", "a"])
        #expect(reference.suffix(3) == ["é", "ÿ", "😀"])
    }

    @Test func repeatedKeyKeepsTheLastValueAtTheFirstPosition() throws {
        let value = try JSONValue.parse(#"{"a":"1","b":"2","a":"3"}"#)
        #expect(value.serializedString() == #"{"a":"3","b":"2"}"#)
    }

    /// Objects above ``JSONObject/indexThreshold`` members keep an index of positions; setting,
    /// replacing and removing members, and parsing repeated keys, must answer as an ordered list
    /// of members does, on either side of the threshold.
    @Test func largeObjectsAnswerAsAnOrderedListOfMembers() throws {
        var generator = SplitMix64(seed: 5)
        for round in 0..<40 {
            var object = JSONObject()
            var reference: [(key: String, value: String)] = []
            let keys = (0..<(8 + round)).map { "key-\($0)" }
            for step in 0..<200 {
                let key = keys[Int(generator.next() % UInt64(keys.count))]
                if generator.next() % 4 == 0 {
                    object[key] = nil
                    reference.removeAll { $0.key == key }
                } else {
                    let value = "\(round).\(step)"
                    object[key] = .string(value)
                    if let position = reference.firstIndex(where: { $0.key == key }) {
                        reference[position].value = value
                    } else {
                        reference.append((key, value))
                    }
                }
                #expect(object.keys == reference.map(\.key), "round \(round), step \(step)")
                for key in keys {
                    #expect(object[key]?.stringValue == reference.first { $0.key == key }?.value, "round \(round), step \(step), \(key)")
                }
            }
            // The same members parsed from text that repeats each key: the last value, at the first place.
            let text = "{" + (reference + reference.reversed().map { ($0.key, $0.value + "-again") })
                .map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
            let parsed = try #require(try JSONValue.parse(text).objectValue)
            #expect(parsed.keys == reference.map(\.key))
            #expect(parsed.map { $0.value.stringValue ?? "" } == reference.map { $0.value + "-again" })
        }
    }

    @Test func acceptsBOMAppleSlashEscapesAndUnicodeEscapes() throws {
        var data = Data([0xEF, 0xBB, 0xBF])
        data.append(Data(#"{"authority":"https:\/\/login.microsoftonline.com\/common","n":"\u00e9\ud83d\ude00\u002B"}"#.utf8))
        let object = try #require(try JSONValue.parse(data).objectValue)
        #expect(object["authority"] == .string("https://login.microsoftonline.com/common"))
        #expect(object["n"] == .string("é😀+"))
    }

    /// Read as U+FFFD, `a\ud800b` and `a\udbffb` would be one id: an unpaired surrogate is refused,
    /// at its escape.
    @Test func unpairedSurrogatesAreRefused() throws {
        for (text, column) in [(#"{"s":"a\ud800b"}"#, 8), (#"{"s":"\udc00"}"#, 7), (#"{"s":"x\ud83d\u0041"}"#, 8), (#"["\ud83d"]"#, 3)] {
            #expect(throws: JSONParseError(reason: .unpairedSurrogate, offset: column - 1, line: 1, column: column), "\(text)") {
                try JSONValue.parse(text)
            }
        }
        #expect(try JSONValue.parse(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test func writesSlashesRawAndEscapesControlCharacters() {
        let value: JSONValue = ["u": "https://x/y", "c": .string("q\"b\\n\n\t\u{01}é")]
        #expect(value.serializedString() == #"{"u":"https://x/y","c":"q\"b\\n\n\t\u0001é"}"#)
    }

    /// The writer copies runs it finds eight bytes at a time: every length from 0 to 40 (the word
    /// loop and the tail), every special byte at every position, non-ASCII characters among them,
    /// against escaping byte by byte, and parsed back.
    @Test func escapesEveryByteAtEveryPosition() throws {
        func reference(_ string: String) -> String {
            var text = "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case "\u{08}": text += "\\b"
                case "\u{0C}": text += "\\f"
                case "\u{00}"..."\u{1F}": text += "\\u00" + String(format: "%02x", scalar.value)
                default: text.unicodeScalars.append(scalar)
                }
            }
            return text + "\""
        }
        let specials: [Character] = ["\"", "\\", "\n", "\u{01}", "\u{1F}", "\u{00}", "é", "😀", " ", "\u{7F}"]
        var generator = SystemRandomNumberGenerator()
        for length in 0...40 {
            for position in 0..<max(length, 1) {
                for special in specials {
                    var characters = (0..<length).map { _ in Character(UnicodeScalar(UInt8.random(in: 0x21...0x7E, using: &generator))) }
                    if length > 0 { characters[position] = special }
                    let string = String(characters)
                    var out: [UInt8] = []
                    JSONSerializer.writeString(string, to: &out)
                    #expect(String(decoding: out, as: UTF8.self) == reference(string))
                    #expect(try JSONValue.parse(Data(("[" + String(decoding: out, as: UTF8.self) + "]").utf8)) == .array([.string(string)]))
                }
            }
        }
    }

    @Test func serializedOutputParsesWithFoundation() throws {
        let value: JSONValue = ["s": "\u{7}\u{2028}/\"", "n": 42, "a": [nil, true]]
        let parsed = try #require(try JSONSerialization.jsonObject(with: value.serialized()) as? [String: Any])
        #expect(parsed["s"] as? String == "\u{7}\u{2028}/\"")
        #expect((parsed["n"] as? NSNumber)?.intValue == 42)
    }

    @Test func trailingCommasAreAcceptedUnlessStrict() throws {
        let text = "{\"a\": [1, 2,],\n \"b\": \"x\",\n}"
        let value = try JSONValue.parse(text)
        #expect(value.serializedString() == #"{"a":[1,2],"b":"x"}"#)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text, allowTrailingCommas: false) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse("[,]") }
        #expect(throws: JSONParseError.self) { try JSONValue.parse("{,}") }
    }

    @Test func errorsGivePositionAndNeverQuoteTheInput() {
        let secret = "eyJ0eXAiOiJKV1Qi.secret-token-value"
        let prefix = "{\"secret\":\"\(secret)"  // 46 bytes
        #expect(prefix.utf8.count == 46)
        let cases: [(String, JSONParseError.Reason, Int, Int)] = [
            (prefix + "\"", .unexpectedEnd, 1, 48),  // just past the last byte
            ("{\n  \"secret\": \"\(secret)\",\n  oops: 1}", .unexpectedCharacter(expected: "a member name in quotes"), 3, 3),
            (prefix + "\" \"x\":1}", .unexpectedCharacter(expected: "',' or '}'"), 1, 49),  // at the second quote
            (prefix + "\\q\"}", .invalidEscape, 1, 47),  // at the backslash
            ("[-]", .invalidNumber, 1, 3),
            ("[01]", .unexpectedCharacter(expected: "',' or ']'"), 1, 3),
            ("{\"a\":\"x\"} {", .trailingContent, 1, 11),
            ("", .empty, 1, 1),
            ("{\"a\":\"\u{1}\"}", .controlCharacterInString, 1, 7),
        ]
        for (text, reason, line, column) in cases {
            do {
                _ = try JSONValue.parse(text)
                Issue.record("parsed invalid JSON: \(text.count) characters")
            } catch {
                #expect(error.reason == reason)
                #expect(error.line == line)
                #expect(error.column == column)
                #expect(!error.description.contains("secret-token"))
                #expect(!error.description.contains(secret))
            }
        }
    }

    @Test func rejectsInvalidUTF8() {
        let data = Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D])  // {"a":"\xC3("}
        #expect(throws: JSONParseError.self) { try JSONValue.parse(data) }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError(reason: .tooDeep(limit: 64), offset: 64, line: 1, column: 65)) {
            try JSONValue.parse(text)
        }
    }

    @Test func objectEqualityIgnoresOrderAndNilRemoves() {
        var a: JSONObject = ["x": "1", "y": "2"]
        let b: JSONObject = ["y": "2", "x": "1"]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        a["x"] = nil
        #expect(a.keys == ["y"])
        #expect(a != b)
    }

    @Test func numberTextValidation() {
        #expect(JSONNumber(text: "12") != nil)
        #expect(JSONNumber(text: "-1.5e-3") != nil)
        #expect(JSONNumber(text: "1.") == nil)
        #expect(JSONNumber(text: "+1") == nil)
        #expect(JSONNumber(text: "0x10") == nil)
        #expect(JSONNumber(text: "1e400")?.truncatedInt64 == nil)
    }
}
