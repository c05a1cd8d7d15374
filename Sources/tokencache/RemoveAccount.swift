import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCache
import TokenCacheSchema

struct RemoveAccount: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-account",
        abstract: "Sign an account out of an app, as MSAL's removeAccount does.",
        discussion: """
            Deletes the app's tokens for the account and marks it signed out for the app; other apps \
            keep their tokens (and single sign-on through family tokens). With --wipe, deletes every \
            token of every app and the account records too.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var targeted: TargetedLoading

    @OptionGroup var app: AppAccountOptions

    @Flag(help: "Remove the account's tokens for all apps and its account records.")
    var wipe = false

    func run() throws {
        let cache = try storeOptions.openCache(loading: targeted.loading)
        let result = try exitOnFailure {
            wipe
                ? try cache.wipeAccount(homeAccountId: app.account, clientId: app.clientId)
                : try cache.removeAccount(homeAccountId: app.account, clientId: app.clientId)
        }
        printOutput(Data(Self.summary(result, account: app.account, clientId: app.clientId, wipe: wipe).utf8))
    }

    /// What happened, in the words of someone signing a user out: which tokens went, what stays and
    /// why `dump` may show a new item (the sign-out state and the wipe record are written, not deleted).
    static func summary(_ result: RemovalResult, account: String, clientId: String, wipe: Bool) -> String {
        // In a fixed order of kinds: the order items were deleted in follows how the store was read.
        var counts = kinds.map { (noun: $0, count: 0) }
        for identity in result.deleted {
            counts[counts.firstIndex { $0.noun == kind(of: identity.type) }!].count += 1
        }
        let deleted = counts.filter { $0.count > 0 }.map { "\($0.count) \($0.noun)\($0.count == 1 ? "" : "s")" }
        let list = deleted.count > 1 ? deleted.dropLast().joined(separator: ", ") + " and " + deleted.last! : deleted.first ?? ""
        var text: String
        if wipe {
            text = deleted.isEmpty
                ? "\(account) had nothing in the store to remove.\n"
                : "Removed \(account) from every app: deleted \(list).\n"
        } else {
            text = deleted.isEmpty
                ? "\(account) had no tokens of \(clientId) to delete.\n"
                : "Signed \(account) out of \(clientId): deleted \(list). Other apps keep their tokens.\n"
            if result.markedSignedOut {
                text += "The account is now marked signed out for \(clientId), so \(clientId) no longer lists it.\n"
            }
        }
        if result.wroteWipeRecord {
            text += "A wipe record notes when the refresh tokens were removed (as MSAL writes it).\n"
        }
        return text
    }

    /// What `kind(of:)` calls items, in the order the summary counts them.
    private static let kinds = ["access token", "refresh token", "ID token", "account record", "ADAL token", "item"]

    private static func kind(of type: UInt32?) -> String {
        guard let type else { return "ADAL token" }
        if AccountType(rawValue: type) != nil { return "account record" }
        switch CredentialType(typeCode: type) {
        case .accessToken?, .accessTokenWithAuthScheme?: return "access token"
        case .refreshToken?, .familyRefreshToken?, .boundRefreshToken?, .primaryRefreshToken?: return "refresh token"
        case .idToken?, .v1IdToken?: return "ID token"
        case .legacySingleResourceToken?: return "ADAL token"
        case .other?, nil: return "item"
        }
    }
}
