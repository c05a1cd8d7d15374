import Foundation
import Testing

@_spi(Text) @testable import TokenCacheSchema

@Suite struct NormalizationTests {
    @Test func normTrimsWhitespaceAndNewlinesThenLowercases() {
        #expect(ItemKey.normalized("  UID.utid\n") == "uid.utid")
        #expect(ItemKey.normalized("\tLOGIN.microsoftonline.com \r\n") == "login.microsoftonline.com")
        #expect(ItemKey.normalized("User.read User.write") == "user.read user.write")  // inner spaces kept
        #expect(ItemKey.normalized("") == "")
        #expect(ItemKey.normalized(nil as String?) == nil)
    }

    @Test func base64URLEncodesWithoutPaddingInTheURLAlphabet() {
        #expect(Base64URL.encode("myfakeuser@contoso.com") == "bXlmYWtldXNlckBjb250b3NvLmNvbQ")
        #expect(Base64URL.encode("https://login.windows.net/contoso.com") == "aHR0cHM6Ly9sb2dpbi53aW5kb3dzLm5ldC9jb250b3NvLmNvbQ")
        #expect(Base64URL.encode("resource") == "cmVzb3VyY2U")
        #expect(Base64URL.encode(Data([0xFB, 0xFF, 0xBF])) == "-_-_")  // '+' and '/' in standard base64
        #expect(Base64URL.encode(Data()) == "")
    }

    @Test func base64URLDecodesPaddedUnpaddedAndTrimmed() {
        #expect(Base64URL.decodeString("bXlmYWtldXNlckBjb250b3NvLmNvbQ") == "myfakeuser@contoso.com")
        #expect(Base64URL.decodeString("cmVzb3VyY2U=") == "resource")
        #expect(Base64URL.decodeString("  cmVzb3VyY2U \n") == "resource")
        #expect(Base64URL.decode("-_-_") == Data([0xFB, 0xFF, 0xBF]))
    }

    @Test func base64URLRejectsALengthWithOneCharacterOver() {
        #expect(Base64URL.decode("abcde") == nil)  // 5 % 4 == 1
        #expect(Base64URL.decode("ab!d") == nil)
    }

    @Test func base64URLDecodeStringDropsOneTrailingNUL() {
        let encoded = Base64URL.encode(Data("abc".utf8) + Data([0]))
        #expect(Base64URL.decodeString(encoded) == "abc")
    }
}

@Suite struct NormalizationFastPathTests {
    /// The ASCII fast path must agree with Foundation's trim-and-lowercase on every input.
    @Test func fastPathAgreesWithFoundation() {
        let ascii = Array(" \t\n\r\u{0B}\u{0C}aZz09-._@AB[`")
        let alphabet = ascii + ["é", "İ", "\u{A0}", "ß", "\u{212A}"]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<10_000 {
            // Up to 40 characters: the fast path tests eight bytes at a time, then the rest; half
            // the inputs are ASCII only, so that the fast path decides them.
            let length = Int.random(in: 0...40, using: &generator)
            let pool = round.isMultiple(of: 2) ? ascii : alphabet
            let text = String((0..<length).map { _ in pool.randomElement(using: &generator)! })
            #expect(ItemKey.normalized(text) == text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(), "\(Array(text.unicodeScalars))")
        }
    }
}

@Suite struct ASCIIWhitespaceTests {
    /// The byte test every fast path trims with must be Foundation's set, restricted to ASCII.
    @Test func byteTestIsFoundationsSetOnASCII() {
        for byte in UInt8(0)..<0x80 {
            let foundation = CharacterSet.whitespacesAndNewlines.contains(Unicode.Scalar(byte))
            #expect(byte.isASCIIWhitespace == foundation, "byte \(byte)")
        }
        for byte in UInt8(0x80)...0xFF { #expect(!byte.isASCIIWhitespace) }
    }

    @Test func trimmingWhitespaceAgreesWithFoundation() {
        let samples = [
            "", " ", "\t\n", "client", " client", "client\r\n", "\u{0B}a b\u{0C}", "\u{A0}client\u{A0}", "é", " é ",
            "\u{85}x", "a\u{2003}", "7b0c8f2a-1d4e-4a51-9c1b-0f5e2d3a4b6c",
        ]
        for text in samples {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
        }
    }
}
