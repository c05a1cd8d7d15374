import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// The MSAL JSON entries legacy ADAL entries stand for, as ``TokenCache/search(_:)`` yields them.
///
/// MSAL reads ADAL's entries where they are and never converts them (MSAL ObjC's legacy accessor);
/// a library that only speaks MSAL JSON (MSAL Python) needs them in its own entry forms. Each
/// legacy entry holding a multi-resource or family refresh token (no resource) is projected into:
///
/// - an `Account` entry: `home_account_id` from the entry's `homeAccountId` (IdentityCore), else
///   the `client_info` in the rest of the token response (`uid.utid`), else the ID token's
///   `oid.tid` (`sub` on ADFS), which is what the server's client info says for a user in their
///   home tenant; `environment` the authority's host; `realm` the ID token's `tid` (`adfs` on
///   ADFS); `username`, `local_account_id`, and `authority_type` `MSSTS` (`ADFS`);
/// - a `RefreshToken` entry: the ADAL refresh token, `client_id` as ADAL archived it (`foci-1` on
///   family entries), `family_id` when the entry has one.
///
/// Projections are read-only: nothing is written for them. An entry without a home account id to
/// give (no ID token with `oid` and `tid`) is not projected. A projection is left out where a
/// unified item already stands for the same MSAL cache key (an `Account` of the same home account,
/// environment and realm; a refresh token of the same home account, environment and client), and
/// an `Account` whose home account id only comes from `oid.tid` is left out when a unified account
/// of the same username and environment exists (a guest's `oid.tid` is not their home id).
struct LegacyProjections: Sendable {
    struct Projected: Sendable {
        let entry: JSONObject
        let sequence: Int
    }

    /// By normalized home account id, each list in store order.
    private(set) var accounts: [String: [Projected]] = [:]
    private(set) var refreshTokens: [String: [Projected]] = [:]

    init(index: CacheIndex) {
        var seenAccounts = Set<[String]>()
        var seenTokens = Set<[String]>()
        let tokens = index.legacyTokensByUser.values.flatMap { $0 }.sorted { $0.sequence < $1.sequence }
        for token in tokens {
            guard token.hasRefreshToken, token.item.resource == nil, let user = LegacyUser(token) else { continue }
            let home = ItemKey.normalized(user.homeAccountId)
            let accountKey = [home, token.environment, ItemKey.normalized(user.realm)]
            let unifiedAccounts = index.accounts(homeAccountId: home)
            let hasUnifiedAccount = unifiedAccounts.contains { $0.environment == token.environment && $0.realm == accountKey[2] }
            let guessedGuest = !user.isHomeAccountIdStored && (index.accountsByUsername[token.userId] ?? []).contains {
                $0.environment == token.environment && $0.homeAccountId != home
            }
            if !hasUnifiedAccount && !guessedGuest && seenAccounts.insert(accountKey).inserted {
                accounts[home, default: []].append(Projected(entry: user.accountEntry(environment: token.environment), sequence: token.sequence))
            }
            let client = ItemKey.normalized(token.item.clientId)
            let tokenKey = [home, token.environment, client]
            let hasUnifiedToken = (index.refreshTokens[home] ?? []).contains {
                $0.environment == token.environment && $0.clientId == client
                    && ($0.credentialType == .refreshToken || $0.credentialType == .familyRefreshToken)
            }
            if !hasUnifiedToken && seenTokens.insert(tokenKey).inserted {
                refreshTokens[home, default: []].append(Projected(entry: Self.refreshTokenEntry(token, homeAccountId: user.homeAccountId), sequence: token.sequence))
            }
        }
    }

    /// The projections of one home account (normalized), or of all in store order when `nil`;
    /// `.some(nil)` (a `null` home account id) has none.
    func entries(_ kind: CacheSearch.Kind, homeAccountId: String??) -> [JSONObject] {
        let byHome: [String: [Projected]]
        switch kind {
        case .account: byHome = accounts
        case .refreshToken: byHome = refreshTokens
        default: return []
        }
        guard !byHome.isEmpty else { return [] }
        switch homeAccountId {
        case .some(.some(let home)): return (byHome[home] ?? []).map(\.entry)
        case .some(.none): return []
        case .none: return byHome.values.flatMap { $0 }.sorted { $0.sequence < $1.sequence }.map(\.entry)
        }
    }

    static func refreshTokenEntry(_ token: IndexedLegacyToken, homeAccountId: String) -> JSONObject {
        var entry: JSONObject = [
            "credential_type": "RefreshToken",
            "secret": .string(token.item.refreshToken ?? ""),
            "home_account_id": .string(homeAccountId),
            "environment": .string(token.environment),
            "client_id": .string(token.item.clientId),
        ]
        if let family = token.item.effectiveFamilyId, !family.allSatisfy(\.isWhitespace) {
            entry["family_id"] = .string(family)
        }
        return entry
    }

    /// The legacy entries removing the MSAL entry `entry` of `kind` removes: for an `Account`,
    /// every legacy entry of that user (home account id and environment) — they make the account,
    /// and MSAL's removal of an account hides it from every app; for a `RefreshToken`, the entries
    /// projected into exactly that entry (home account id, environment, client id, secret).
    static func sources(of entry: JSONObject, kind: CacheSearch.Kind, index: CacheIndex) -> [ItemIdentity] {
        guard kind == .account || kind == .refreshToken, !index.legacyTokensByUser.isEmpty,
            let home = entry["home_account_id"]?.stringValue, let environment = entry["environment"]?.stringValue
        else { return [] }
        let normalizedHome = ItemKey.normalized(home)
        let host = environment.lowercased()
        var found: [ItemIdentity] = []
        for tokens in index.legacyTokensByUser.values {
            for token in tokens where token.environment == host {
                guard let user = LegacyUser(token), ItemKey.normalized(user.homeAccountId) == normalizedHome else { continue }
                if kind == .refreshToken {
                    // Not only the entry's own token: once MSAL saved a newer refresh token for this
                    // client, the ADAL one is shadowed by it, and removing the entry removes both.
                    guard token.hasRefreshToken, token.item.resource == nil,
                        entry["client_id"]?.stringValue == token.item.clientId
                    else { continue }
                } else if token.hasRefreshToken {
                    // Another app's refresh token is its sign-in: MSAL keeps other apps' refresh
                    // tokens when it removes an account, and so do we. This app's went with its
                    // RefreshToken entries, which MSAL removes first.
                    continue
                }
                found.append(token.identity)
            }
        }
        return found
    }
}

/// The user of a legacy entry as MSAL JSON names them.
struct LegacyUser {
    let homeAccountId: String
    /// Whether the home account id was stored (IdentityCore's `homeAccountId`, or client info)
    /// rather than derived from the ID token.
    let isHomeAccountIdStored: Bool
    let realm: String
    let localAccountId: String?
    let username: String
    let isADFS: Bool

    init?(_ token: IndexedLegacyToken) {
        let claims = token.claims
        func claim(_ name: String) -> String? {
            guard let value = claims?[name]?.stringValue, !value.allSatisfy(\.isWhitespace) else { return nil }
            return value
        }
        isADFS = token.authorityTenant == "adfs"
        if !token.homeAccountId.isEmpty {
            homeAccountId = token.homeAccountId
            isHomeAccountIdStored = true
        } else if case .string(let raw)? = token.item.additionalServer?["client_info"],
            let data = Base64URL.decode(raw), let info = (try? JSONValue.parse(data))?.objectValue,
            let uid = info["uid"]?.stringValue, let utid = info["utid"]?.stringValue, !uid.isEmpty, !utid.isEmpty
        {
            homeAccountId = "\(uid).\(utid)".lowercased()
            isHomeAccountIdStored = true
        } else if isADFS, let sub = claim("sub") {
            // MSAL Python's home account id for a user of ADFS, which sends no client info.
            homeAccountId = sub
            isHomeAccountIdStored = false
        } else if !isADFS, let oid = claim("oid"), let tid = claim("tid") {
            homeAccountId = "\(oid).\(tid)".lowercased()
            isHomeAccountIdStored = false
        } else {
            return nil
        }
        realm = isADFS ? "adfs" : (claim("tid") ?? token.authorityTenant)
        localAccountId = claim("oid") ?? claim("sub")
        username = claim("preferred_username") ?? claim("upn") ?? token.userId
    }

    func accountEntry(environment: String) -> JSONObject {
        var entry: JSONObject = [
            "home_account_id": .string(homeAccountId),
            "environment": .string(environment),
            "realm": .string(realm),
            "username": .string(username),
            "authority_type": .string(isADFS ? "ADFS" : "MSSTS"),
        ]
        if let localAccountId { entry["local_account_id"] = .string(localAccountId) }
        return entry
    }
}
