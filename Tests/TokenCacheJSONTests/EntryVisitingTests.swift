import Foundation
import Testing

@testable import TokenCacheJSON

/// The visiting parse (`JSONParser+Entries.swift`) accepts exactly what the whole parse accepts,
/// with the same errors, and hands over exactly the entries of the members it visits.
@Suite struct EntryVisitingTests {
    /// Every entry the visitor is handed when it visits the members `visit` names.
    static func visited(_ text: String, visit: Set<String>) throws(JSONParseError) -> [String: [(String, JSONValue)]] {
        var entries: [String: [(String, JSONValue)]] = [:]
        var member = ""
        _ = try JSONParser.parse(Data(text.utf8), allowTrailingCommas: true) { event in
            switch event {
            case .member(let name):
                member = name
                return visit.contains(name) ? .visit : .skip
            case .entry(let key, let value):
                entries[member, default: []].append((key, value))
                return .visit
            }
        }
        return entries
    }

    @Test func entriesAreTheWholeParsesMembers() throws {
        let text = #"{"A": {"x": {"k": [1, 2, {"d": null}]}, "y": "s"}, "B": {"z": 1}, "C": [1, 2], "D": null, "E": {},}"#
        let whole = try #require(try JSONValue.parse(text).objectValue)
        let entries = try Self.visited(text, visit: ["A", "C", "D", "E"])
        #expect(entries["A"]?.map(\.0) == ["x", "y"])
        #expect(entries["A"]?.map(\.1) == whole["A"]?.objectValue.map { object in object.map(\.value) })
        #expect(entries["B"] == nil && entries["C"] == nil && entries["D"] == nil && entries["E"] == nil)
    }

    @Test func aRootArrayHasNoEntries() throws {
        #expect(try Self.visited(#"[{"a": 1}, {"b": {"c": 2}}]"#, visit: ["a", "b"]).isEmpty)
    }

    @Test func stoppingEndsTheParse() throws {
        var seen = 0
        let result = try JSONParser.parse(Data(#"{"A": {"x": 1, "y": 2, "z": 3}}"#.utf8), allowTrailingCommas: true) { event in
            if case .entry = event {
                seen += 1
                return seen == 2 ? .stop : .visit
            }
            return .visit
        }
        // `nil` as Optional's none, not JSONValue's null literal.
        #expect(result == Optional<JSONValue>.none && seen == 2)
    }

    /// Truncations and single-byte corruptions of a document: accepted by both or refused by both
    /// with the same error.
    @Test func sameAcceptanceAndErrorsAsTheWholeParse() throws {
        let text = #"{"A": {"x": {"k": "v\u00e9", "n": -1.5e3}, "y": [true, false, null]}, "B": {"z": {"q": []}}, "C": "c"}"#
        let bytes = Array(text.utf8)
        var variants: [[UInt8]] = (0..<bytes.count).map { Array(bytes[..<$0]) }
        for index in bytes.indices {
            for replacement in [UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "["), 0x01, 0xFF] {
                var copy = bytes
                copy[index] = replacement
                variants.append(copy)
            }
        }
        for variant in variants {
            let data = Data(variant)
            let whole = Result { () throws(JSONParseError) in try JSONValue.parse(data) }
            let visiting = Result { () throws(JSONParseError) in
                try JSONParser.parse(data, allowTrailingCommas: true) { _ in .visit }
            }
            switch (whole, visiting) {
            case (.success, .success): break
            case (.failure(let expected), .failure(let found)): #expect(expected == found, "\(String(decoding: variant, as: UTF8.self))")
            default: Issue.record("accepted by one parse only: \(String(decoding: variant, as: UTF8.self))")
            }
        }
    }
}
