import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing
import TokenCacheDisplay
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

/// Attributes and keys planted in a store or a file never reach the terminal as raw escape
/// sequences, in human output, JSON output or errors.
@Suite("tokencache: terminal safety")
struct TerminalSafetyTests {
    static let hostile = "x\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m\u{202E}\u{2067}y"

    @Test func dumpAndAccountsEscapeEverythingAFileCanHold() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let path = cli.home.path("c.sqlite")
        try SQLiteStore(path: path, accessGroups: try AccessGroups(["com.microsoft.adalcache"])).save([
            StoreItem(accessGroup: "com.microsoft.adalcache", account: Self.hostile, service: Self.hostile + "\nservice: forged",
                      generic: Data(Self.hostile.utf8), type: 1003,
                      data: Data(#"{"authority_type":"MSSTS","home_account_id":"h.t","environment":"login.microsoftonline.com","realm":"t","username":"\#(Self.hostile)"}"#.utf8)),
        ])
        for arguments in [["dump"], ["accounts"], ["dump", "--json"], ["accounts", "--json"]] {
            let result = try cli.run(arguments: arguments + ["--store", "sqlite:\(path)"])
            #expect(result.status == 0, "\(arguments): \(result.errors)")
            let unsafe = result.output.unicodeScalars.filter { DisplayText.isUnsafe($0) && $0 != "\n" }
            #expect(unsafe.isEmpty, "\(arguments): raw \(unsafe.map { String($0.value, radix: 16) })")
            if arguments == ["dump", "--json"] {
                let parsed = try JSONValue.parse(Data(result.output.utf8), allowTrailingCommas: false)
                #expect(parsed.serializedString().contains("owned"), "still the same JSON")
            }
        }
        let dump = try cli.run("dump", "--store", "sqlite:\(path)")
        #expect(!dump.output.contains("\nservice: forged"), "a newline in a value cannot forge a line")
    }

    @Test("an error quoting a hostile key is escaped and short")
    func errorQuoting() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let key = "\u{9B}31m" + "e" + String(repeating: "\u{301}", count: 200_000)
        let file = cli.home.path("bad.json")
        let json = #"{"IdToken": {"\#(key)": "a string"}}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        let result = try cli.run("import", file, "--store", "sqlite:" + cli.home.path("c.sqlite"))
        #expect(result.status == 65)
        #expect(result.errors.utf8.count < 1000, "\(result.errors.utf8.count) bytes")
        #expect(!result.errors.unicodeScalars.contains { DisplayText.isUnsafe($0) && $0 != "\n" })
    }
}

@Suite("tokencache: import - is bounded")
struct BoundedStandardInputTests {
    @Test("import - of 300 MB stops at the file limit with exit 65, the store unchanged")
    func hugeStandardInput() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let store = "sqlite:" + cli.home.path("c.sqlite")
        let text = try cli.shell { "head -c 300000000 /dev/zero | '\($0)' import - --store '\(store)'; echo \"status $?\" >&2" }
        #expect(text.contains("status 65"), "\(text)")
        #expect(text.contains("more than the 268435456 bytes an import accepts"), "\(text)")
        #expect(try cli.run("accounts", "--store", store, environment: ["TOKENCACHE_KEY": "file"]).output.contains("No accounts"))
    }
}
