import Foundation
import TestSupport
import Testing

/// Output the CLI cannot write is an I/O error (exit 74, the reason on stderr), never a success
/// with the output lost.
@Suite struct OutputFailureTests {
    @Test func aFullDiskOnStandardOutputIsAnIOError() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let store = "sqlite:" + cli.home.path("c.sqlite")
        let text = try cli.shell { "'\($0)' accounts --json --store '\(store)' > /dev/full; echo \"status $?\" >&2" }
        #expect(text.contains("status 74"), "\(text)")
        #expect(text.contains("tokencache: cannot write to standard output: No space left on device"), "\(text)")
    }

    @Test func outputThatFitsIsWrittenWhole() throws {
        let cli = try CLI()
        defer { cli.home.cleanUp() }
        let result = try cli.run("accounts", "--json", "--store", "sqlite:" + cli.home.path("c.sqlite"), environment: ["TOKENCACHE_KEY": "file"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "[\n\n]\n" || result.output.hasPrefix("["), "\(result.output)")
    }
}
