import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCache

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

    @OptionGroup var app: AppAccountOptions

    @Flag(help: "Remove the account's tokens for all apps and its account records.")
    var wipe = false

    func run() throws {
        let cache = try storeOptions.openCache()
        let result = try exitOnFailure {
            wipe
                ? try cache.wipeAccount(homeAccountId: app.account, clientId: app.clientId)
                : try cache.removeAccount(homeAccountId: app.account, clientId: app.clientId)
        }
        var text = "Removed \(result.deleted.count) item\(result.deleted.count == 1 ? "" : "s")"
        if result.markedSignedOut { text += "; \(app.account) is signed out of \(app.clientId)" }
        printOutput(Data((text + ".\n").utf8))
    }
}
