import Foundation
import Testing
@testable import CacheStoreRedis

@Suite("Redis lookup-key values")
struct RedisLookupKeysTests {
    @Test func roundTripsWhatTheStoreWrites() {
        let values = ["user@contoso.com", "uid.utid-login.windows.net", "a/b \"quoted\" \\ back", "tab\there", "ünïcødé 𝄞", ""]
        #expect(RedisLookupKeys.decode(RedisLookupKeys.encode(values)) == values)
        #expect(RedisLookupKeys.decode(RedisLookupKeys.encode([])) == [])
    }

    @Test func writesCompactJSONThatAnyReaderReads() throws {
        #expect(String(decoding: RedisLookupKeys.encode(["a/b", "q\"b\\", "é"]), as: UTF8.self) == #"["a/b","q\"b\\","é"]"#)
        #expect(String(decoding: RedisLookupKeys.encode([]), as: UTF8.self) == "[]")
        // Every control character, each escaped so that a strict reader (Foundation's) agrees.
        let controls = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + ["\u{7F}", "x\u{1}y"]
        let encoded = RedisLookupKeys.encode(controls)
        #expect(!encoded.contains { $0 < 0x20 })
        #expect(try JSONDecoder().decode([String].self, from: encoded) == controls)
        #expect(RedisLookupKeys.decode(encoded) == controls)
        #expect(String(decoding: RedisLookupKeys.encode(["\u{1}\n"]), as: UTF8.self) == #"["\u0001\n"]"#)
    }

    @Test func readsWhatTheIndexScriptWrites() {
        // cjson escapes '/' and writes no spaces; other writers may add white space.
        #expect(RedisLookupKeys.decode(Data(#"["home-login.windows.net","a\/b"]"#.utf8)) == ["home-login.windows.net", "a/b"])
        #expect(RedisLookupKeys.decode(Data(" [ \"x\" ,\n\t\"y\" ] \r\n".utf8)) == ["x", "y"])
        #expect(RedisLookupKeys.decode(Data(#"["\u00e9\ud834\udd1e\n\b\f\r\t\"\\"]"#.utf8)) == ["é𝄞\n\u{8}\u{C}\r\t\"\\"])
    }

    @Test func agreesWithJSONDecoderOnValidArrays() throws {
        let samples = [#"[]"#, #"["a"]"#, #"["a","b","c"]"#, #"["\u0041\u00DF"]"#, #"["x\/y","\\"]"#]
        for sample in samples {
            let expected = try JSONDecoder().decode([String].self, from: Data(sample.utf8))
            #expect(RedisLookupKeys.decode(Data(sample.utf8)) == expected, "\(sample)")
        }
    }

    @Test func refusesAnythingElse() {
        let refused: [[UInt8]] = [
            Array("".utf8), Array("[".utf8), Array("]".utf8), Array("[\"a\"".utf8), Array("[\"a\",]".utf8),
            Array("[,\"a\"]".utf8), Array("[1]".utf8), Array("[null]".utf8), Array("{\"a\":\"b\"}".utf8),
            Array("\"a\"".utf8), Array("[\"a\"] x".utf8), Array("[\"a\" \"b\"]".utf8), Array("[\"a]".utf8),
            Array("[\"\\x\"]".utf8), Array("[\"\\u12\"]".utf8), Array("[\"\\ud834\"]".utf8), Array("[\"\\udd1e\"]".utf8),
            Array("[\"\\ud834\\u0041\"]".utf8), Array("[\"line\nbreak\"]".utf8), Array("[\"\\".utf8),
            [0x5B, 0x22, 0xFF, 0x22, 0x5D],  // ["<invalid UTF-8>"]
            [0x5B, 0x22, 0x5C, 0x6E, 0xC3, 0x22, 0x5D],  // an escape, then a truncated sequence
        ]
        for bytes in refused {
            #expect(RedisLookupKeys.decode(Data(bytes)) == nil, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}
