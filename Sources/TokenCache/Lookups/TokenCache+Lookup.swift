import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

extension TokenCache {
    /// The access token for `query`, or `nil` when no unexpired one matches.
    ///
    /// Matching (MSAL ObjC's rules, with MSAL.NET's where ObjC is silent): home account, client and
    /// realm equal after trimming and lower-casing; environment any alias of the one asked for,
    /// tokens under the preferred cache host first; every requested scope but `openid`, `profile`
    /// and `offline_access` among the token's, case-insensitive; the same token type and key id;
    /// requested claims equal exactly; the same application identifier and extended cache key. A token expires
    /// ``Configuration/expirationBuffer`` seconds early, and one whose `cached_at` lies in the future
    /// counts as expired. Among several matches the one that expires last wins.
    public func accessToken(_ query: AccessTokenQuery) throws -> FoundAccessToken? {
        try withIndex(.homeAccount(query.homeAccountId, environment: query.environment, legacy: false, metadata: false)) { index in try accessToken(query, in: index) }
    }

    func accessToken(_ query: AccessTokenQuery, in index: CacheIndex) throws -> FoundAccessToken? {
        let aliases = configuration.clouds.aliases(for: query.environment)
        let candidates: [IndexedCredential]
        if let realm = resolvedRealm(query.realm, homeAccountId: query.homeAccountId) {
            candidates = index.accessTokens(
                CacheIndex.AccessTokenKey(normalizingHomeAccountId: query.homeAccountId, clientId: query.clientId, realm: realm),
                environments: aliases)
        } else {
            candidates = index.accessTokens(
                homeAccountId: ItemKey.normalized(query.homeAccountId), clientId: ItemKey.normalized(query.clientId), environments: aliases)
        }
        guard !candidates.isEmpty else { return nil }

        // The defaults are normalized already.
        let tokenType = query.tokenType.map(ItemKey.normalized) ?? "bearer"
        let keyId = query.keyId.map(ItemKey.normalized) ?? ""
        // Requested claims match when both are blank or both are exactly equal (IndexedCredential
        // keeps blank claims as nil).
        let claims = query.requestedClaims.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        let applicationIdentifier = query.applicationIdentifier.map(ItemKey.normalized) ?? ""
        let extCacheKey = query.extCacheKey.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : ItemKey.normalized($0) }
        let now = self.now
        let deadline = UnixTime.adding(configuration.expirationBuffer, to: now)

        var best: (rank: Int, token: IndexedCredential, expiresOn: Int64)?
        for token in candidates {
            // The cheap comparisons first; the scopes, the costliest, last.
            guard let rank = aliases.firstIndex(of: token.environment),
                token.tokenType == tokenType,
                token.keyId == keyId,
                token.requestedClaims == claims,
                token.applicationIdentifier == applicationIdentifier,
                token.extCacheKey == extCacheKey,
                let expiresOn = token.expiresOn,
                expiresOn >= deadline,
                (token.cachedAt ?? 0) <= now,
                token.scopes.containsAll(requested: query.scopes)
            else { continue }
            // Tokens under the preferred cache host win over other aliases, then the longest-lived.
            if let current = best, (current.rank, -current.expiresOn) <= (rank, -expiresOn) { continue }
            best = (rank, token, expiresOn)
        }
        guard let best else { return nil }
        let refreshOn = best.token.refreshOn
        return FoundAccessToken(
            stored: StoredCredential(best.token),
            expiresOn: Date(timeIntervalSince1970: TimeInterval(best.expiresOn)),
            refreshOn: refreshOn.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            needsRefresh: refreshOn.map { $0 < now } ?? false)
    }

    /// The refresh token for `query`: the app's own, or with a family id the family's.
    ///
    /// A username is resolved to home accounts through the account records (case-insensitive).
    /// The app's own token is the one keyed by its client id (no `family_id`); a family lookup finds
    /// the family-keyed refresh token (2002 with `family_id`) or a single-model `FamilyRefreshToken`
    /// (2008), whichever the configuration prefers first.
    public func refreshToken(_ query: RefreshTokenQuery) throws -> StoredCredential? {
        try withIndex(query.need) { index in try refreshToken(query, in: index) }
    }

    func refreshToken(_ query: RefreshTokenQuery, in index: CacheIndex) throws -> StoredCredential? {
        let aliases = query.environment.map { configuration.clouds.aliases(for: $0) }
        let clientId = ItemKey.normalized(query.clientId)
        let familyId = query.familyId.map { ItemKey.normalized($0) }
        let kinds: (CredentialType, CredentialType?) =
            familyId == nil
            ? (.refreshToken, nil)
            : configuration.useSingleFamilyRefreshToken ? (.familyRefreshToken, .refreshToken) : (.refreshToken, .familyRefreshToken)
        func search(_ homeAccountId: String) -> IndexedCredential? {
            guard let tokens = index.refreshTokens[homeAccountId] else { return nil }
            func matches(_ token: IndexedCredential, _ kind: CredentialType) -> Bool {
                guard token.credentialType == kind else { return false }
                if let aliases, !aliases.contains(token.environment) { return false }
                if let familyId { return token.familyId == familyId }
                return token.familyId.isEmpty && token.clientId == clientId
            }
            if let token = tokens.first(where: { matches($0, kinds.0) }) { return token }
            if let second = kinds.1, let token = tokens.first(where: { matches($0, second) }) { return token }
            return nil
        }
        switch query.subject {
        case .homeAccountId(let id):
            if let token = search(ItemKey.normalized(id)) { return StoredCredential(token) }
        case .username(let username):
            for homeAccountId in index.homeAccountIds(withUsername: username) {
                if let token = search(homeAccountId) { return StoredCredential(token) }
            }
        }
        return legacyRefreshToken(query, in: index)
    }

    /// The refresh token of a legacy ADAL entry, as MSAL falls back to them: a multi-resource
    /// (resource-less) entry of the app, or with a family id the `foci-<id>` entry, of the user.
    private func legacyRefreshToken(_ query: RefreshTokenQuery, in index: CacheIndex) -> StoredCredential? {
        let aliases = query.environment.map { Set(configuration.clouds.aliases(for: $0)) }
        let clientId = query.familyId.map { LegacyCacheKey.familyClientIdPrefix + ItemKey.normalized($0) } ?? ItemKey.normalized(query.clientId)
        for user in legacyUserIds(for: query.subject, in: index) {
            let match = (index.legacyTokensByUser[user] ?? []).first { token in
                token.hasRefreshToken && token.item.resource == nil
                    && ItemKey.normalized(token.item.clientId) == clientId
                    && (aliases?.contains(token.environment) ?? true)
            }
            if let match { return StoredCredential(refreshTokenOf: match) }
        }
        return nil
    }

    /// The legacy user ids a subject stands for: the username itself, or the usernames of the home
    /// account's records and of legacy entries that carry the home account id.
    func legacyUserIds(for subject: RefreshTokenQuery.Subject, in index: CacheIndex) -> [String] {
        switch subject {
        case .username(let username):
            return [ItemKey.normalized(username)]
        case .homeAccountId(let id):
            let home = ItemKey.normalized(id)
            var users: [String] = []
            for account in index.accounts(homeAccountId: home) {
                if let username = account.username, !users.contains(username) { users.append(username) }
            }
            for (user, tokens) in index.legacyTokensByUser where !users.contains(user) && tokens.contains(where: { $0.homeAccountId == home }) {
                users.append(user)
            }
            return users
        }
    }

    /// The family refresh token an app in a family can use for `homeAccountId`.
    ///
    /// The family comes from the app's metadata; an app whose metadata says it is in no family gets
    /// none, and an app without metadata is assumed to be in family `"1"`, as MSAL assumes.
    public func familyRefreshToken(homeAccountId: String, clientId: String, environment: String? = nil) throws -> StoredCredential? {
        try withIndex(.homeAccount(homeAccountId, environment: environment, legacy: true)) { index in
            let familyId: String
            if let metadata = appMetadataEntry(clientId: clientId, environment: environment, in: index) {
                guard !metadata.familyId.isEmpty else { return nil }
                familyId = metadata.familyId
            } else {
                familyId = "1"
            }
            return try refreshToken(
                RefreshTokenQuery(subject: .homeAccountId(homeAccountId), clientId: clientId, familyId: familyId, environment: environment),
                in: index)
        }
    }

    /// The ID token of an account for a client and tenant (any tenant when `realm` is `nil`).
    public func idToken(homeAccountId: String, clientId: String, environment: String, realm: String? = nil) throws -> StoredCredential? {
        try withIndex(.homeAccount(homeAccountId, environment: environment, legacy: false, metadata: false)) { index in try idToken(homeAccountId: homeAccountId, clientId: clientId, environment: environment, realm: realm, in: index) }
    }

    func idToken(homeAccountId: String, clientId: String, environment: String, realm: String?, in index: CacheIndex) throws -> StoredCredential? {
        let home = ItemKey.normalized(homeAccountId)
        let aliases = configuration.clouds.aliases(for: environment)
        let realm = resolvedRealm(realm, homeAccountId: home)
        let client = ItemKey.normalized(clientId)
        let matches = (index.idTokens[home] ?? []).filter {
            $0.clientId == client && aliases.contains($0.environment) && (realm == nil || $0.realm == realm)
        }
        let best = matches.min { (aliases.firstIndex(of: $0.environment)!, $0.credentialType == .idToken ? 0 : 1)
            < (aliases.firstIndex(of: $1.environment)!, $1.credentialType == .idToken ? 0 : 1) }
        return best.map(StoredCredential.init)
    }

    /// The app metadata of a client (in any environment when `environment` is `nil`, else any alias).
    public func appMetadata(clientId: String, environment: String? = nil) throws -> AppMetadata? {
        try withIndex(.appMetadata(environment: environment)) { index in try appMetadata(clientId: clientId, environment: environment, in: index) }
    }

    func appMetadata(clientId: String, environment: String?, in index: CacheIndex) throws -> AppMetadata? {
        appMetadataEntry(clientId: clientId, environment: environment, in: index)?.metadata
    }

    /// The app metadata entry of a client: in any environment when `environment` is `nil`, else the
    /// one under the alias searched first.
    func appMetadataEntry(clientId: String, environment: String?, in index: CacheIndex) -> IndexedAppMetadata? {
        guard let entries = index.appMetadata[ItemKey.normalized(clientId)] else { return nil }
        guard let environment else { return entries.first }
        let aliases = configuration.clouds.aliases(for: environment)
        return entries.min { (aliases.firstIndex(of: $0.environment) ?? .max) < (aliases.firstIndex(of: $1.environment) ?? .max) }
            .flatMap { aliases.contains($0.environment) ? $0 : nil }
    }

    // MARK: - Helpers

    /// The tenant of personal Microsoft accounts.
    static let msaTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// `realm` normalized; a placeholder tenant stands for the account's home tenant, as in MSAL
    /// ObjC's silent flow: `common` and `consumers` always, `organizations` unless the home tenant is
    /// the MSA tenant (an `organizations` authority cannot serve a personal account), and only when
    /// the home tenant (the `utid` of `homeAccountId`, normalized here) is a UUID.
    func resolvedRealm(_ realm: String?, homeAccountId: String) -> String? {
        guard let realm else { return nil }
        let normalized = ItemKey.normalized(realm)
        // Most realms are tenant ids (36 bytes), longer than any alias: they skip the comparisons.
        guard normalized.utf8.count <= 13,
            normalized == "common" || normalized == "organizations" || normalized == "consumers"
        else { return normalized }
        let homeAccountId = ItemKey.normalized(homeAccountId)
        guard let dot = homeAccountId.lastIndex(of: ".") else { return normalized }
        let homeTenant = String(homeAccountId[homeAccountId.index(after: dot)...])
        guard UUID(uuidString: homeTenant) != nil else { return normalized }
        if normalized == "organizations" && homeTenant == Self.msaTenant { return normalized }
        return homeTenant
    }
}
