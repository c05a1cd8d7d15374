import CacheStore
import TokenCacheSchema

extension TokenCache {
    /// The accounts in the cache, one per home account, with their tenant profiles.
    ///
    /// - Parameters:
    ///   - clientId: when given, only accounts signed in to this app: those with a refresh token of
    ///     the app or of its family (the app metadata's `family_id`, else `"1"`), or marked
    ///     `signed_in` in the app's account metadata; an account marked `signed_out` is hidden even
    ///     if family tokens remain. ID-token claims come from this app's ID tokens first.
    ///   - environment: when given, only records under an alias of it.
    public func accounts(clientId: String? = nil, environment: String? = nil) throws -> [CachedAccount] {
        let index = try currentIndex()
        var seen = Set<String>()
        return index.homeAccountOrder.filter { seen.insert($0).inserted }.compactMap { cachedAccount(homeAccountId: $0, clientId: clientId, environment: environment, index: index) }
    }

    /// The account with this home account id (`uid.utid`, any case), if it is in the cache (and,
    /// with `clientId`, signed in to that app).
    public func account(identifier: String, clientId: String? = nil, environment: String? = nil) throws -> CachedAccount? {
        let index = try currentIndex()
        return cachedAccount(homeAccountId: norm(identifier), clientId: clientId, environment: environment, index: index)
    }

    /// The first account whose username equals `username` ignoring case and surrounding spaces.
    public func account(username: String, clientId: String? = nil, environment: String? = nil) throws -> CachedAccount? {
        let index = try currentIndex()
        for homeAccountId in homeAccountIds(for: .username(username), in: index) {
            if let account = cachedAccount(homeAccountId: homeAccountId, clientId: clientId, environment: environment, index: index) {
                return account
            }
        }
        return nil
    }

    private func cachedAccount(homeAccountId: String, clientId: String?, environment: String?, index: CacheIndex) -> CachedAccount? {
        var records = index.accounts(homeAccountId: homeAccountId)
        var aliases: [String]?
        if let environment {
            let list = configuration.clouds.aliases(for: environment)
            aliases = list
            records = records.filter { list.contains($0.environment) }
        }
        guard !records.isEmpty else { return nil }
        if let clientId, !isSignedIn(homeAccountId: homeAccountId, clientId: clientId, aliases: aliases, index: index) {
            return nil
        }
        let homeTenant = homeAccountId.split(separator: ".").last.map(String.init)
        let client = clientId.map(norm)
        var profiles: [CachedAccount.TenantProfile] = []
        var realms = Set<String>()
        for record in records where realms.insert(record.realm).inserted {
            let idTokens = (index.idTokens[homeAccountId] ?? []).filter {
                $0.realm == record.realm && configuration.clouds.areAliases($0.environment, record.environment)
            }
            let idToken = idTokens.first { $0.clientId == client } ?? idTokens.first
            profiles.append(CachedAccount.TenantProfile(
                realm: record.realm,
                localAccountId: record.account.localAccountId,
                isHomeTenant: record.realm == homeTenant,
                idTokenClaims: idToken?.claims,
                account: record.account,
                identity: record.identity))
        }
        let primary = records.first { $0.realm == homeTenant } ?? records[0]
        return CachedAccount(
            homeAccountId: homeAccountId,
            environment: primary.environment,
            username: primary.account.username ?? records.lazy.compactMap(\.account.username).first,
            name: primary.account.name ?? records.lazy.compactMap(\.account.name).first,
            tenantProfiles: profiles)
    }

    private func isSignedIn(homeAccountId: String, clientId: String, aliases: [String]?, index: CacheIndex) -> Bool {
        if let state = index.accountMetadata[clientId]?.metadata.accounts[homeAccountId]?.signInState {
            if state == .signedOut { return false }
            if state == .signedIn { return true }
        }
        let client = norm(clientId)
        // The app metadata's family when an entry exists (none, when it names none), else "1" — the
        // same choice as familyRefreshToken(homeAccountId:clientId:environment:).
        let familyId: String
        if let metadata = index.appMetadata[client]?.first?.metadata {
            familyId = norm(metadata.familyId ?? "")
        } else {
            familyId = "1"
        }
        return (index.refreshTokens[homeAccountId] ?? []).contains { token in
            if let aliases, !aliases.contains(token.environment) { return false }
            return token.clientId == client || (!familyId.isEmpty && token.familyId == familyId)
        }
    }
}
