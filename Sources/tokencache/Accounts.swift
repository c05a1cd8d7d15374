import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCache
import TokenCacheDisplay
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

struct Accounts: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the accounts in the cache, one per home account with its tenant profiles.",
        discussion: "With --client-id, only accounts signed in to that app. Exits 1 when --identifier or --username finds none.")

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var targeted: TargetedLoading

    @Option(help: "Only accounts signed in to this app (a refresh token of the app or its family, or account metadata).")
    var clientId: String?

    @Option(help: "Only the account with this username (case-insensitive).")
    var username: String?

    @Option(help: "Only the account with this home account identifier (uid.utid).")
    var identifier: String?

    @Option(help: "Only records under an alias of this environment, e.g. login.microsoftonline.com.")
    var environment: String?

    @Flag(help: "Print the accounts as JSON.")
    var json = false

    func run() throws {
        // A question about one account reads only its partitions; a listing only the kinds of item
        // it shows (the engine's partition mode reads no more for it).
        let cache = try storeOptions.openCache(loading: targeted.loading)
        let accounts: [CachedAccount] = try exitOnFailure {
            if let identifier {
                let found = try cache.account(identifier: identifier, clientId: clientId, environment: environment)
                return found.map { [$0] }?.filter { username == nil || ItemKey.normalized($0.username ?? "") == ItemKey.normalized(username!) } ?? []
            }
            if let username {
                return try cache.account(username: username, clientId: clientId, environment: environment).map { [$0] } ?? []
            }
            // The text shows no claims: the listing need not read ID tokens.
            return try cache.accounts(clientId: clientId, environment: environment, idTokenClaims: json)
        }
        if json {
            printJSON(.array(accounts.map(Self.json)))
        } else if accounts.isEmpty {
            printOutput(Data("No accounts.\n".utf8))
        } else {
            var text = ""
            for account in accounts {
                text += account.username.map { DisplayText.escaped($0) } ?? "(no username)"
                if let name = account.name { text += " (\(DisplayText.escaped(name)))" }
                text += "\n  home account id: \(DisplayText.escaped(account.homeAccountId))\n  environment:     \(DisplayText.escaped(account.environment))\n"
                for profile in account.tenantProfiles {
                    text += "  tenant \(profile.realm.isEmpty ? "(none)" : DisplayText.escaped(profile.realm))"
                    text += profile.isHomeTenant ? " (home)" : ""
                    if let local = profile.localAccountId { text += ", local account id \(DisplayText.escaped(local))" }
                    text += "\n"
                }
            }
            printOutput(Data(text.utf8))
        }
        if accounts.isEmpty && (identifier != nil || username != nil) {
            throw ExitCode(Status.notFound)
        }
    }

    static func json(_ account: CachedAccount) -> JSONValue {
        var object: JSONObject = [
            "home_account_id": .string(account.homeAccountId),
            "environment": .string(account.environment),
        ]
        if let username = account.username { object["username"] = .string(username) }
        if let name = account.name { object["name"] = .string(name) }
        object["tenant_profiles"] = .array(account.tenantProfiles.map { profile in
            var entry: JSONObject = [
                "realm": .string(profile.realm),
                "is_home_tenant": .bool(profile.isHomeTenant),
                "account": .object(profile.account.jsonObject),
            ]
            if let local = profile.localAccountId { entry["local_account_id"] = .string(local) }
            if let claims = profile.idTokenClaims { entry["id_token_claims"] = .object(claims) }
            return .object(entry)
        })
        return .object(object)
    }
}
