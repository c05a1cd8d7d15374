import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCache
import TokenCacheDisplay
import TokenCacheInterchange

struct LookupAccessToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access-token",
        abstract: "Find an unexpired access token for an account, app and scopes.",
        discussion: """
            Scopes match as a subset, ignoring case and openid/profile/offline_access; the environment \
            matches any of its aliases. Human output never shows the token; --json prints the \
            unified-schema item, its secret redacted unless --reveal-secrets.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var targeted: TargetedLoading

    @OptionGroup var app: AppAccountOptions

    @Option(help: "The scopes, space-separated, e.g. \"User.Read Mail.Read\".")
    var scopes: String

    @Option(help: "The tenant; common/organizations/consumers mean the account's home tenant (default: any).")
    var realm: String?

    @Option(help: "The environment (default: login.microsoftonline.com; any alias matches).")
    var environment: String = "login.microsoftonline.com"

    @Option(help: "The token type for tokens with an auth scheme, e.g. pop or ssh-cert (default: Bearer).")
    var tokenType: String?

    @Option(help: "The key id (kid) a proof-of-possession token must be bound to.")
    var keyId: String?

    @Option(help: "The claims request the token must have been issued for.")
    var claims: String?

    @Flag(help: "Print the token's item as JSON (its secret redacted unless --reveal-secrets).")
    var json = false

    @Flag(help: "With --json, include the token itself. Handle the output as a secret.")
    var revealSecrets = false

    func run() throws {
        let cache = try storeOptions.openCache(loading: targeted.loading)
        let query = AccessTokenQuery(
            homeAccountId: app.account, environment: environment, realm: realm, clientId: app.clientId,
            scopes: scopes.split(separator: " ").map(String.init), tokenType: tokenType, keyId: keyId,
            requestedClaims: claims)
        guard let found = try exitOnFailure({ try cache.accessToken(query) }) else {
            printError("no unexpired access token matches")
            throw ExitCode(Status.notFound)
        }
        if json {
            printJSON(revealSecrets ? .object(found.credential.jsonObject) : PayloadView.redacted(.object(found.credential.jsonObject), type: nil))
            return
        }
        let credential = found.credential
        var details = [("realm", credential.realm ?? "(none)"), ("scopes", credential.target ?? "")]
        if let tokenType = credential.tokenType { details.append(("token type", tokenType)) }
        details.append(("expires on", found.expiresOn.formatted(.iso8601)))
        if let refreshOn = found.refreshOn {
            details.append(("refresh on", refreshOn.formatted(.iso8601) + (found.needsRefresh ? " (due)" : "")))
        }
        let text = describe(credential, details: details)
        printOutput(Data(text.utf8))
    }
}
