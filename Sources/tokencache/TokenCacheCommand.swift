import ArgumentParser
import Foundation

@main
struct TokenCacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokencache",
        abstract: "Inspect and manage a unified MSAL/ADAL token cache.",
        discussion: """
            The store is chosen with --store or TOKENCACHE_STORE: sqlite:PATH, secret-service (the \
            login keyring), secret-service:COLLECTION or memory; by default \
            it is $XDG_DATA_HOME/tokencache/cache.sqlite. Secrets are never printed unless a command \
            is given --reveal-secrets.

            Exit status: 0 ok, 1 not found, 2 usage, 65 bad input data, 74 I/O or backend unavailable.
            """,
        version: releaseVersion,
        subcommands: [Accounts.self, Lookup.self, RemoveAccount.self, Dump.self, Import.self, Export.self, Doctor.self, Repair.self]
    )

    /// Runs the command, reporting usage errors with status 2 as documented (swift-argument-parser
    /// would use 64).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(Status.usage)
            }
            exit(withError: error)
        }
    }
}
