import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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
    ///   - idTokenClaims: `false` leaves the tenant profiles' ``CachedAccount/TenantProfile/idTokenClaims``
    ///     `nil`, for a caller that does not show them: in partition loading mode the listing then
    ///     reads no ID tokens.
    ///
    /// Accounts known only from legacy ADAL entries with a refresh token follow, unless a unified
    /// account already stands for them (same home account id, or same username when the entry has
    /// none) or the app signed them out; with `clientId`, only entries of that app or its family count.
    ///
    /// In partition loading mode every call reads the store, but only the kinds of item the listing
    /// looks at (account records, legacy entries, ID tokens for their claims and, with `clientId`,
    /// what says who is signed in to the app) where the store can select them by type (SQLite, memory).
    public func accounts(clientId: String? = nil, environment: String? = nil, idTokenClaims: Bool = true) throws -> [CachedAccount] {
        try withIndex(ofTypes: Self.listingTypes(clientId: clientId, idTokenClaims: idTokenClaims)) { index in
            try accounts(clientId: clientId, environment: environment, idTokenClaims: idTokenClaims, in: index)
        }
    }

    /// The kinds of item a listing of every account looks at: account records and legacy ADAL
    /// entries (no type), ID tokens for their claims; for one app also what says whether an account
    /// is signed in to it — refresh tokens, the app metadata (its family), sign-in states and account
    /// metadata. Not access tokens, most of a cache.
    static func listingTypes(clientId: String?, idTokenClaims: Bool) -> [ItemQuery.TypeMatch] {
        var types: [ItemQuery.TypeMatch] = AccountType.allCases.map { .code($0.typeCode) } + [.absent]
        if idTokenClaims {
            types += [.code(CredentialType.idToken.typeCode), .code(CredentialType.v1IdToken.typeCode)]
        }
        if clientId != nil {
            types += [CredentialType.refreshToken, .familyRefreshToken, .boundRefreshToken].map { .code($0.typeCode) }
            types += [ItemTypeCode.appMetadata, ItemTypeCode.accountMetadata, ItemTypeCode.accountSignIn].map { .code($0) }
        }
        return types
    }

    func accounts(clientId: String?, environment: String?, idTokenClaims: Bool = true, in index: CacheIndex) throws -> [CachedAccount] {
        // An app lists its accounts before nearly every silent request, and the answer only changes
        // with the cache: it is built once per index state, and after a change only the home
        // accounts the change touched are built again.
        let key = AccountMemo.ListingKey(clientId: clientId, environment: environment, idTokenClaims: idTokenClaims)
        return index.memo.fullListing(key) {
            let unified = index.memo.listing(key) { previous in
                unifiedListing(clientId: clientId, environment: environment, idTokenClaims: idTokenClaims, updating: previous, in: index)
            }
            if index.legacyTokensByUser.isEmpty { return unified }
            return unified + legacyAccounts(
                clientId: clientId, environment: environment, idTokenClaims: idTokenClaims, excluding: unified, index: index)
        }
    }

    /// The unified accounts in home account order; with `previous`, the listing of an earlier state
    /// in the same order, only the home accounts changed since are built.
    private func unifiedListing(
        clientId: String?, environment: String?, idTokenClaims: Bool, updating previous: AccountMemo.PreviousListing?, in index: CacheIndex
    ) -> [CachedAccount] {
        let scope = AccountScope(clientId: clientId, environment: environment, idTokenClaims: idTokenClaims, engine: self, index: index)
        let order = index.homeAccountOrder
        guard let previous else {
            return order.compactMap { buildAccount(homeAccountId: $0, scope: scope, index: index) }
        }
        // The previous listing is a subsequence of `order`: walk both together.
        var result: [CachedAccount] = []
        result.reserveCapacity(previous.accounts.count + previous.changedHomes.count)
        var next = previous.accounts.startIndex
        for home in order {
            let listedBefore = next < previous.accounts.endIndex && previous.accounts[next].homeAccountId == home
            if previous.changedHomes.contains(home) {
                if let account = buildAccount(homeAccountId: home, scope: scope, index: index) { result.append(account) }
            } else if listedBefore {
                result.append(previous.accounts[next])
            }
            if listedBefore { next += 1 }
        }
        return result
    }

    /// The account with this home account id (`uid.utid`, any case), if it is in the cache (and,
    /// with `clientId`, signed in to that app).
    public func account(identifier: String, clientId: String? = nil, environment: String? = nil) throws -> CachedAccount? {
        try withIndex(.homeAccount(identifier, environment: environment, legacy: true)) { index in try account(identifier: identifier, clientId: clientId, environment: environment, in: index) }
    }

    func account(identifier: String, clientId: String?, environment: String?, in index: CacheIndex) throws -> CachedAccount? {
        let home = ItemKey.normalized(identifier)
        if let account = cachedAccount(homeAccountId: home, clientId: clientId, environment: environment, index: index) {
            return account
        }
        guard !home.isEmpty else { return nil }
        return legacyAccounts(clientId: clientId, environment: environment, excluding: [], index: index)
            .first { $0.homeAccountId == home }
    }

    /// The first account whose username equals `username` ignoring case and surrounding spaces.
    public func account(username: String, clientId: String? = nil, environment: String? = nil) throws -> CachedAccount? {
        try withIndex(.username(username)) { index in try account(username: username, clientId: clientId, environment: environment, in: index) }
    }

    func account(username: String, clientId: String?, environment: String?, in index: CacheIndex) throws -> CachedAccount? {
        for homeAccountId in index.homeAccountIds(withUsername: username) {
            if let account = cachedAccount(homeAccountId: homeAccountId, clientId: clientId, environment: environment, index: index) {
                return account
            }
        }
        let user = ItemKey.normalized(username)
        return legacyAccounts(clientId: clientId, environment: environment, excluding: [], index: index, users: [user])
            .first { ItemKey.normalized($0.username ?? "") == user }
    }

    /// Accounts built from legacy ADAL refresh-token entries (MSAL's legacy accessor), without those
    /// a unified account in `excluding` already stands for.
    private func legacyAccounts(
        clientId: String?, environment: String?, idTokenClaims: Bool = true, excluding unified: [CachedAccount], index: CacheIndex,
        users: [String]? = nil
    ) -> [CachedAccount] {
        let aliases = environment.map { Set(configuration.clouds.aliases(for: $0)) }
        let familyId = clientId.map { familyIdForSignIn(clientId: $0, index: index) }
        let knownHomes = Set(unified.map(\.homeAccountId))
        let knownUsers = Set(unified.compactMap { $0.username.map { ItemKey.normalized($0) } })
        var result: [CachedAccount] = []
        let candidates = (users ?? Array(index.legacyTokensByUser.keys))
            .compactMap { index.legacyTokensByUser[$0] }
            .sorted { $0[0].sequence < $1[0].sequence }
        for tokens in candidates {
            // ObjC compares the client and family ids of legacy entries exactly (isEqualToString:).
            guard let token = tokens.first(where: { token in
                token.hasRefreshToken && (aliases?.contains(token.environment) ?? true)
                    && (clientId == nil || token.item.clientId == clientId
                        || (!(familyId ?? "").isEmpty && token.item.effectiveFamilyId == familyId))
            }) else { continue }
            let home = token.homeAccountId
            if !home.isEmpty {
                if knownHomes.contains(home) { continue }
                if let clientId, index.signInEntry(clientId: clientId, home: home)?.signInState == .signedOut { continue }
            } else {
                if knownUsers.contains(token.userId) { continue }
                // An entry without a home account id is hidden when its user's unified account is
                // signed out of this app.
                if let clientId, index.accountsByUsername[token.userId]?.contains(where: {
                    index.signInEntry(clientId: clientId, home: $0.homeAccountId)?.signInState == .signedOut
                }) == true { continue }
            }
            let claims = token.claims
            let realm = ItemKey.normalized(claims?["tid"]?.stringValue ?? token.authorityTenant)
            let account = Account(
                authorityType: .aad,
                homeAccountId: home.isEmpty ? nil : home,
                environment: token.environment,
                realm: realm,
                localAccountId: claims?["oid"]?.stringValue,
                username: token.userId.isEmpty ? nil : token.userId,
                givenName: claims?["given_name"]?.stringValue,
                familyName: claims?["family_name"]?.stringValue,
                name: claims?["name"]?.stringValue)
            let homeTenant = home.split(separator: ".").last.map(String.init)
            result.append(CachedAccount(
                homeAccountId: home,
                environment: token.environment,
                username: account.username,
                name: account.name,
                tenantProfiles: [CachedAccount.TenantProfile(
                    account: account, identity: token.identity,
                    isHomeTenant: homeTenant.map { $0 == realm } ?? true, idTokenClaims: idTokenClaims ? claims : nil)],
                source: .legacyADAL))
        }
        return result
    }

    private func cachedAccount(homeAccountId: String, clientId: String?, environment: String?, index: CacheIndex) -> CachedAccount? {
        // Single accounts are asked for again and again between writes: each answer is built once.
        let key = AccountMemo.Key(homeAccountId: homeAccountId, clientId: clientId, environment: environment)
        if let known = index.memo.knownAccount(key) { return known }
        let built = buildAccount(homeAccountId: homeAccountId, scope: AccountScope(clientId: clientId, environment: environment, engine: self, index: index), index: index)
        index.memo.remember(built, for: key)
        return built
    }

    /// What building accounts for one app and environment needs, worked out once per listing
    /// rather than once per account.
    struct AccountScope {
        /// The app, normalized; `nil` for every app.
        let client: String?
        /// The app as given (its sign-in states are filed under it); `nil` for every app.
        let clientId: String?
        /// The family whose tokens sign an account in to the app (empty: none).
        let familyId: String
        /// The environment's aliases; `nil` for every environment.
        let aliases: [String]?
        /// Whether profiles carry their ID token's claims.
        let idTokenClaims: Bool

        init(clientId: String?, environment: String?, idTokenClaims: Bool = true, engine: TokenCache, index: CacheIndex) {
            client = clientId.map { ItemKey.normalized($0) }
            self.idTokenClaims = idTokenClaims
            self.clientId = clientId
            familyId = clientId.map { engine.familyIdForSignIn(clientId: $0, index: index) } ?? ""
            aliases = environment.map { engine.configuration.clouds.aliases(for: $0) }
        }
    }

    func buildAccount(homeAccountId: String, scope: AccountScope, index: CacheIndex) -> CachedAccount? {
        var records = index.accounts(homeAccountId: homeAccountId)
        if let aliases = scope.aliases {
            records = records.filter { aliases.contains($0.environment) }
        }
        guard !records.isEmpty else { return nil }
        if scope.client != nil, !isSignedIn(homeAccountId: homeAccountId, scope: scope, index: index) {
            return nil
        }
        let idTokens = scope.idTokenClaims ? index.idTokens[homeAccountId] ?? [] : []
        var profiles: [CachedAccount.TenantProfile] = []
        profiles.reserveCapacity(records.count)
        var primary: IndexedAccount?
        for record in records where !profiles.contains(where: { $0.realm == record.realm }) {
            let isHome = Self.isHomeTenant(record.realm, of: homeAccountId)
            if isHome && primary == nil { primary = record }
            // The app's own ID token for the tenant, else any app's.
            var idToken: IndexedCredential?
            for token in idTokens where token.realm == record.realm
                && configuration.clouds.areAliases(token.environment, record.environment)
            {
                if token.clientId == scope.client {
                    idToken = token
                    break
                }
                if idToken == nil { idToken = token }
            }
            profiles.append(CachedAccount.TenantProfile(record: record, isHomeTenant: isHome, idToken: idToken))
        }
        let primaryRecord = primary ?? records[0]
        return CachedAccount(
            homeAccountId: homeAccountId,
            environment: primaryRecord.environment,
            username: primaryRecord.account.username ?? records.lazy.compactMap(\.account.username).first,
            name: primaryRecord.account.name ?? records.lazy.compactMap(\.account.name).first,
            tenantProfiles: profiles,
            source: .unified)
    }

    /// Whether `realm` is the `utid` of `homeAccountId` (`uid.utid`): the part after its last dot,
    /// compared without allocating.
    static func isHomeTenant(_ realm: String, of homeAccountId: String) -> Bool {
        var home = homeAccountId
        var tenant = realm
        return home.withUTF8 { home in
            tenant.withUTF8 { tenant in
                guard !tenant.isEmpty, home.count > tenant.count, home[home.count - tenant.count - 1] == UInt8(ascii: "."),
                    !tenant.contains(UInt8(ascii: "."))
                else { return false }
                return memcmp(home.baseAddress! + (home.count - tenant.count), tenant.baseAddress!, tenant.count) == 0
            }
        }
    }

    private func isSignedIn(homeAccountId: String, scope: AccountScope, index: CacheIndex) -> Bool {
        if let clientId = scope.clientId, let state = index.signInEntry(clientId: clientId, home: homeAccountId)?.signInState {
            if state == .signedOut { return false }
            if state == .signedIn { return true }
        }
        return (index.refreshTokens[homeAccountId] ?? []).contains { token in
            if let aliases = scope.aliases, !aliases.contains(token.environment) { return false }
            return token.clientId == scope.client || (!scope.familyId.isEmpty && token.familyId == scope.familyId)
        }
    }

    /// The app metadata's family when an entry exists (none, when it names none), else "1" — the
    /// same choice as familyRefreshToken(homeAccountId:clientId:environment:).
    func familyIdForSignIn(clientId: String, index: CacheIndex) -> String {
        if let metadata = index.appMetadata[ItemKey.normalized(clientId)]?.first?.metadata {
            return ItemKey.normalized(metadata.familyId ?? "")
        }
        return "1"
    }
}
