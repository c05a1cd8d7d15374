@_spi(Text) @_spi(Pause) import CacheStore
import Foundation
import Testing

/// The small text helpers that stand in for Foundation's (the modules link only FoundationEssentials):
/// each must answer as Foundation does.
@Suite struct TextTests {
    @Test func whitespaceSetsAreFoundations() {
        var differing: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if UnicodeWhitespace.whitespaces.contains(scalar) != CharacterSet.whitespaces.contains(scalar)
                || UnicodeWhitespace.whitespacesAndNewlines.contains(scalar) != CharacterSet.whitespacesAndNewlines.contains(scalar)
            {
                differing.append("U+" + String(value, radix: 16, uppercase: true))
            }
        }
        #expect(differing == [])
    }

    @Test func trimsAsFoundationDoes() {
        let samples = [
            "", " ", "\t\n", "abc", "  abc  ", "\u{3000}x\u{00A0}", "\u{2028}x y\u{2029}", "\r\nx\r\n", "\u{0085}x",
            " \u{301}a", "a\u{301} ", "\u{200B}x\u{200B}", "\u{FEFF}x", "é ", "\t\u{1F600}\t", "\u{000B}\u{000C}x",
        ]
        for text in samples {
            #expect(text.trimming(.whitespaces) == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
            #expect(
                text.trimming(.whitespacesAndNewlines) == text.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(text.debugDescription)")
        }
    }

    @Test func replacesEveryScalarLiterally() {
        #expect("a/b//c/".replacingEvery("/", with: "\\/") == "a\\/b\\/\\/c\\/")
        #expect("a\u{0}b\u{0}".replacingEvery("\u{0}", with: "\u{FFFD}") == "a\u{FFFD}b\u{FFFD}")
        #expect("x\ny\r\nz".replacingEvery("\n", with: "\n    ") == "x\n    y\r\n    z")
        #expect("plain".replacingEvery("/", with: "\\/") == "plain")
        // Scalar by scalar: a slash with a combining mark on it is still replaced.
        #expect("/\u{301}".replacingEvery("/", with: "\\/") == "\\/\u{301}")
        for text in ["", "/", "a/b", "{\"k\":\"https://x/y\"}"] {
            #expect(text.replacingEvery("/", with: "\\/") == text.replacingOccurrences(of: "/", with: "\\/"))
        }
    }

    @Test func pausesForTheDuration() {
        let clock = ContinuousClock()
        let took = clock.measure { pauseThread(for: .milliseconds(30)) }
        #expect(took >= .milliseconds(30))
        #expect(clock.measure { pauseThread(for: .zero) } < .milliseconds(30))
    }
}
