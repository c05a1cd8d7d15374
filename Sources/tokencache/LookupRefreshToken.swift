import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCache
import TokenCacheDisplay
import TokenCacheInterchange

struct LookupRefreshToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh-token",
        abstract: "Find the refresh token of an account for an app, or its family refresh token.",
        discussion: "Human output never shows the token; --json prints the unified-schema item, its secret redacted unless --reveal-secrets.")

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var targeted: TargetedLoading

    @Option(help: "The app's client id.")
    var clientId: String

    @Option(help: "The account's home account identifier (uid.utid).")
    var account: String?

    @Option(help: "The account's username (case-insensitive), instead of --account.")
    var username: String?

    @Option(help: "Find the family refresh token of this family (e.g. 1) instead of the app's own.")
    var familyId: String?

    @Option(help: "The environment (default: any; any alias matches).")
    var environment: String?

    @Flag(help: "Print the token's item as JSON (its secret redacted unless --reveal-secrets).")
    var json = false

    @Flag(help: "With --json, include the token itself. Handle the output as a secret.")
    var revealSecrets = false

    func validate() throws {
        guard (account == nil) != (username == nil) else {
            throw ValidationError("give exactly one of --account and --username")
        }
    }

    func run() throws {
        let cache = try storeOptions.openCache(loading: targeted.loading)
        let subject: RefreshTokenQuery.Subject = account.map { .homeAccountId($0) } ?? .username(username!)
        let query = RefreshTokenQuery(subject: subject, clientId: clientId, familyId: familyId, environment: environment)
        guard let found = try exitOnFailure({ try cache.refreshToken(query) }) else {
            printError("no refresh token matches")
            throw ExitCode(Status.notFound)
        }
        if json {
            printJSON(revealSecrets ? .object(found.credential.jsonObject) : PayloadView.redacted(.object(found.credential.jsonObject), type: nil))
            return
        }
        let credential = found.credential
        var details: [(String, String)] = []
        if let family = credential.familyId { details.append(("family id", family)) }
        details.append(("stored as", found.identity.service))
        let text = describe(credential, details: details)
        printOutput(Data(text.utf8))
    }
}
