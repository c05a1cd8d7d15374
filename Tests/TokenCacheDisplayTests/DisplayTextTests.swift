import Testing
import TokenCacheDisplay

@Suite("Display text: nothing from a file reaches the terminal raw")
struct DisplayTextTests {
    static let hostile = "a\u{1B}[2J\u{1B}]0;owned\u{07}b\u{9B}31mc\u{202E}d\u{2066}e\u{7F}f\r\ng"

    @Test func everyControlC1AndBidiScalarIsEscaped() {
        let shown = DisplayText.escaped(Self.hostile)
        #expect(!shown.unicodeScalars.contains(where: DisplayText.isUnsafe))
        #expect(shown.contains("\\u{1b}[2J") && shown.contains("\\u{9b}") && shown.contains("\\u{202e}") && shown.contains("\\u{a}"))
        let lines = DisplayText.escaped("one\ntwo\u{1B}", keepingLineBreaks: true)
        #expect(lines == "one\ntwo\\u{1b}")
    }

    @Test func keptLineBreaksAloneLeaveTheTextAsItIsAndAreEscapedOtherwise() {
        let text = "tenant (home)\n\tuser@contoso.com, \u{e9}t\u{e9}\n"
        #expect(DisplayText.escaped(text, keepingLineBreaks: true) == text)
        #expect(DisplayText.escaped(text) == "tenant (home)\\u{a}\\u{9}user@contoso.com, \u{e9}t\u{e9}\\u{a}")
    }

    @Test func jsonStaysJSONAndMeansTheSame() throws {
        let json = "\"x\u{9B}y\u{202E}z\u{7F}\""
        let safe = DisplayText.jsonSafe(json)
        #expect(safe == "\"x\\u009by\\u202ez\\u007f\"")
        #expect(!safe.unicodeScalars.contains(where: DisplayText.isUnsafe))
    }

    @Test func prettyJSONKeepsItsLineBreaksAndOnlyWhatJSONAllowsRawIsEscaped() {
        for unchanged in ["[\n  \"plain\"\n]", "{\n  \"name\" : \"caf\u{e9}\"\n}"] {
            #expect(DisplayText.jsonSafe(unchanged) == unchanged)
        }
        #expect(DisplayText.jsonSafe("[\n  \"a\u{7F}b\u{202E}\"\n]") == "[\n  \"a\\u007fb\\u202e\"\n]")
        #expect(DisplayText.escaped("a\u{7F}b", keepingLineBreaks: true) == "a\\u{7f}b")
    }

    @Test("quoting caps by bytes: one character with 200,000 combining marks stays short")
    func quotingCapsByBytes() {
        let flood = "e" + String(repeating: "\u{301}", count: 200_000)
        let quoted = DisplayText.quoted(flood)
        #expect(quoted.utf8.count <= 170)
        #expect(quoted.hasSuffix("…'"))
        #expect(DisplayText.quoted("short") == "'short'")
        let escapes = DisplayText.quoted(String(repeating: "\u{9B}", count: 1000))
        #expect(escapes.utf8.count <= 170 && !escapes.unicodeScalars.contains(where: DisplayText.isUnsafe))
    }
}
