import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CacheStoreLocation

@main
struct TokenCacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokencache",
        abstract: "Inspect and manage a unified MSAL/ADAL token cache.",
        discussion: """
            The store is chosen with --store or TOKENCACHE_STORE: \(StoreSpecification.forms); by \
            default it is $XDG_DATA_HOME/tokencache/cache.sqlite. Secrets are never printed unless a command \
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
                StandardStream.error.send(fullMessage(for: error) + "\n")
                exit(withError: ExitCode(Status.usage))
            }
            exit(withError: error)
        }
    }
}
