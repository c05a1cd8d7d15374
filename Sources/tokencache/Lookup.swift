import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheDisplay
import TokenCacheInterchange
import TokenCacheSchema

struct Lookup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find one token the way an auth library would. Exits 1 when none matches.",
        subcommands: [LookupAccessToken.self, LookupRefreshToken.self])
}

/// What both lookups print for a found credential, in the human form: its kind, account and
/// environment, then `details` (label, value) in order, then the secret's length — never the secret.
func describe(_ credential: Credential, details: [(String, String)]) -> String {
    var text = "\(credential.credentialType) for \(DisplayText.escaped(credential.homeAccountId ?? "?")) on \(DisplayText.escaped(credential.environment ?? "?"))\n"
    for (label, value) in [("client id", credential.clientId ?? "?")] + details {
        // The labels are short ASCII: padded to one column, never cut.
        let heading = label + ":"
        text += "  \(heading)\(String(repeating: " ", count: max(0, 11 - heading.count))) \(DisplayText.escaped(value))\n"
    }
    text += "  secret:     \(credential.secret.count) characters (hidden; --json --reveal-secrets shows it)\n"
    return text
}
