import CacheStore
import Foundation
import TokenCacheSchema

/// A credential as the index holds it: decoded once, with the normalized fields lookups compare.
struct IndexedCredential: Sendable {
    let credential: Credential
    /// Where the item is stored (its own attributes, which may differ from the key it would get today).
    let identity: ItemIdentity
    let homeAccountId: String
    let environment: String
    let clientId: String
    /// Empty when the credential is not a family token.
    let familyId: String
    let realm: String
    /// Access tokens only.
    let scopes: ScopeSet
    /// `bearer` when the item names none.
    let tokenType: String

    init(_ credential: Credential, identity: ItemIdentity) {
        self.credential = credential
        self.identity = identity
        homeAccountId = norm(credential.homeAccountId ?? "")
        environment = norm(credential.environment ?? "")
        clientId = norm(credential.clientId ?? "")
        familyId = norm(credential.familyId ?? "")
        realm = norm(credential.realm ?? "")
        scopes = ScopeSet(credential.target ?? "")
        tokenType = norm(credential.tokenType ?? "bearer")
    }
}

struct IndexedAccount: Sendable {
    let account: Account
    let identity: ItemIdentity
    let homeAccountId: String
    let environment: String
    let realm: String
}

struct IndexedAppMetadata: Sendable {
    let metadata: AppMetadata
    let identity: ItemIdentity
    let clientId: String
    let environment: String
}

/// The decoded content of the store at one change stamp, arranged for the lookups the engine makes.
///
/// Built in one pass over every item; immutable afterwards, so readers share it without locking.
final class CacheIndex: Sendable {
    struct AccessTokenKey: Hashable {
        let homeAccountId: String
        let clientId: String
        let realm: String
    }

    /// Access tokens (2001, 2007) by home account, client and realm.
    let accessTokens: [AccessTokenKey: [IndexedCredential]]
    /// Refresh, family refresh and bound refresh tokens (2002, 2008, 2009) by home account.
    let refreshTokens: [String: [IndexedCredential]]
    /// ID tokens (2003, 2006) by home account.
    let idTokens: [String: [IndexedCredential]]
    /// Every credential by home account, whatever its kind (removal walks these).
    let credentialsByHomeAccount: [String: [IndexedCredential]]
    let accounts: [IndexedAccount]
    /// Positions in ``accounts`` by normalized home account id.
    let accountsByHomeAccount: [String: [Int]]
    /// Positions in ``accounts`` by normalized username.
    let accountsByUsername: [String: [Int]]
    /// App metadata by normalized client id.
    let appMetadata: [String: [IndexedAppMetadata]]
    /// Account metadata (the authority map) by client id as stored, with where it is stored.
    let accountMetadata: [String: (metadata: AccountMetadata, identity: ItemIdentity)]
    /// Tombstoned credentials: to be deleted, never returned.
    let tombstones: [ItemIdentity]
    /// Unified items whose payload could not be read; they are skipped, as MSAL skips them.
    let unreadable: [SchemaError]
    /// How many items the store held.
    let itemCount: Int

    init(items: [StoreItem]) {
        var accessTokens: [AccessTokenKey: [IndexedCredential]] = [:]
        var refreshTokens: [String: [IndexedCredential]] = [:]
        var idTokens: [String: [IndexedCredential]] = [:]
        var credentialsByHomeAccount: [String: [IndexedCredential]] = [:]
        var accounts: [IndexedAccount] = []
        var accountsByHomeAccount: [String: [Int]] = [:]
        var accountsByUsername: [String: [Int]] = [:]
        var appMetadata: [String: [IndexedAppMetadata]] = [:]
        var accountMetadata: [String: (metadata: AccountMetadata, identity: ItemIdentity)] = [:]
        var tombstones: [ItemIdentity] = []
        var unreadable: [SchemaError] = []

        for item in items {
            let decoded: UnifiedItem
            do {
                decoded = try UnifiedItem(item)
            } catch {
                unreadable.append(error)
                continue
            }
            switch decoded {
            case .credential(let credential):
                if credential.isTombstone {
                    tombstones.append(item.identity)
                    continue
                }
                let indexed = IndexedCredential(credential, identity: item.identity)
                credentialsByHomeAccount[indexed.homeAccountId, default: []].append(indexed)
                switch credential.credentialType {
                case .accessToken, .accessTokenWithAuthScheme:
                    let key = AccessTokenKey(homeAccountId: indexed.homeAccountId, clientId: indexed.clientId, realm: indexed.realm)
                    accessTokens[key, default: []].append(indexed)
                case .refreshToken, .familyRefreshToken, .boundRefreshToken:
                    refreshTokens[indexed.homeAccountId, default: []].append(indexed)
                case .idToken, .v1IdToken:
                    idTokens[indexed.homeAccountId, default: []].append(indexed)
                default:
                    break
                }
            case .account(let account):
                let indexed = IndexedAccount(
                    account: account, identity: item.identity,
                    homeAccountId: norm(account.homeAccountId ?? ""),
                    environment: norm(account.environment ?? ""),
                    realm: norm(account.realm ?? ""))
                accountsByHomeAccount[indexed.homeAccountId, default: []].append(accounts.count)
                if let username = account.username {
                    accountsByUsername[norm(username), default: []].append(accounts.count)
                }
                accounts.append(indexed)
            case .appMetadata(let metadata):
                let indexed = IndexedAppMetadata(
                    metadata: metadata, identity: item.identity,
                    clientId: norm(metadata.clientId ?? ""), environment: norm(metadata.environment ?? ""))
                appMetadata[indexed.clientId, default: []].append(indexed)
            case .accountMetadata(let metadata):
                accountMetadata[metadata.clientId] = (metadata, item.identity)
            case .other:
                break
            }
        }
        self.accessTokens = accessTokens
        self.refreshTokens = refreshTokens
        self.idTokens = idTokens
        self.credentialsByHomeAccount = credentialsByHomeAccount
        self.accounts = accounts
        self.accountsByHomeAccount = accountsByHomeAccount
        self.accountsByUsername = accountsByUsername
        self.appMetadata = appMetadata
        self.accountMetadata = accountMetadata
        self.tombstones = tombstones
        self.unreadable = unreadable
        self.itemCount = items.count
    }

    /// The stored accounts of one home account.
    func accounts(homeAccountId: String) -> [IndexedAccount] {
        (accountsByHomeAccount[homeAccountId] ?? []).map { accounts[$0] }
    }
}
