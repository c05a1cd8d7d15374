import CacheStore
import TokenCacheJSON
import TokenCacheSchema

extension TokenCache {
    /// The entries MSAL Python's `TokenCache.search` would yield for `search`, in the store's order,
    /// as MSAL JSON entries. (Access tokens of different home accounts come in the order the engine
    /// first read each home's, which on a SQLite store is the order they were first asked for: see
    /// `docs/architecture.md`.)
    ///
    /// Answered from the index: a query naming `home_account_id` (or, for app metadata, `client_id`)
    /// reads only that account's (app's) entries; access tokens narrowed to one account, client and
    /// realm are read from one list. Without such members every entry of the kind is compared, as
    /// MSAL does. Legacy ADAL entries with a multi-resource or family refresh token also answer, as
    /// the `Account` and `RefreshToken` entries they stand for (``LegacyProjections``), after the
    /// unified ones, so MSAL Python signs their users in silently. Expired access tokens are left out (MSAL Python also deletes them; the engine
    /// leaves that to the store's owner), and so are access tokens with an `ext_cache_key` when the
    /// query names none.
    public func search(_ search: CacheSearch) throws -> [JSONObject] {
        let now = search.now ?? self.now
        var query = search.query
        if case .string(let environment)? = query["environment"] { query["environment"] = .string(environment.lowercased()) }
        let homeAccountId: String?? = query["home_account_id"].map { value in
            if case .string(let text) = value { return ItemKey.normalized(text) }
            return value == .null ? "" : nil
        }
        let wanted = Set(search.target.map { Substring($0) })
        let body: (CacheIndex) throws -> [JSONObject] = { [self] index in
            var results: [JSONObject] = []
            func consider(_ entry: JSONObject) {
                guard Self.matches(entry, query) else { return }
                if !wanted.isEmpty {
                    guard wanted.isSubset(of: Self.words(entry["target"]?.stringValue ?? "")) else { return }
                }
                results.append(entry)
            }
            switch search.kind {
            case .accessToken, .refreshToken, .idToken:
                for credential in candidates(search.kind, homeAccountId: homeAccountId, query: query, index: index) {
                    guard let (section, entry) = credential.credential.msalEntry, section == search.kind.rawValue else { continue }
                    if search.kind == .accessToken {
                        if let expiresOn = entry["expires_on"]?.stringValue.flatMap({ Int64($0) }), expiresOn < now { continue }
                        if entry["ext_cache_key"] != nil && query["ext_cache_key"] == nil { continue }
                    }
                    consider(entry)
                }
                if search.kind == .refreshToken, !index.legacyTokensByUser.isEmpty {
                    for entry in index.legacyProjections.entries(.refreshToken, homeAccountId: homeAccountId) { consider(entry) }
                }
            case .account:
                let accounts: [IndexedAccount]
                switch homeAccountId {
                case .some(.some(let home)): accounts = index.accounts(homeAccountId: home)
                case .some(.none): accounts = []
                case .none: accounts = index.accountsByHomeAccount.values.flatMap { $0 }.sorted { $0.sequence < $1.sequence }
                }
                for account in accounts { consider(account.account.msalEntry) }
                if !index.legacyTokensByUser.isEmpty {
                    for entry in index.legacyProjections.entries(.account, homeAccountId: homeAccountId) { consider(entry) }
                }
            case .appMetadata:
                let apps: [IndexedAppMetadata]
                if case .string(let client)? = query["client_id"] {
                    apps = index.appMetadata[ItemKey.normalized(client)] ?? []
                } else {
                    apps = index.appMetadata.values.flatMap { $0 }.sorted { $0.sequence < $1.sequence }
                }
                for app in apps { consider(app.metadata.msalEntry) }
            }
            return results
        }
        if case .partitions = configuration.loading, let need = Self.partitionNeed(search.kind, homeAccountId: homeAccountId, query: query) {
            return try withIndex(need, body)
        }
        return try withIndex(body)
    }

    /// What a search needs loaded in partition mode: one account's partitions (the app tokens' for
    /// a `null` home account) under the environment it names, or the app metadata of one
    /// environment; `nil` (every partition) when the query names no environment, since the items
    /// of a host no alias table knows are only found by reading everything.
    private static func partitionNeed(_ kind: CacheSearch.Kind, homeAccountId: String??, query: JSONObject) -> PartitionNeed? {
        guard case .string(let environment)? = query["environment"] else { return nil }
        switch (kind, homeAccountId) {
        case (.appMetadata, _): return .appMetadata(environment: environment)
        case (.accessToken, .some(let home)), (.idToken, .some(let home)):
            return .homeAccount(home ?? "", environment: environment, legacy: false, metadata: false)
        case (.refreshToken, .some(.some(let home))), (.account, .some(.some(let home))):
            return .homeAccount(home, environment: environment, legacy: true, metadata: false)
        default: return nil
        }
    }

    /// The legacy ADAL entries that stand for `entries` (MSAL JSON entries by section), to be
    /// deleted with the items the entries name when a library removes them: for an `Account`,
    /// the legacy entries of that user (home account id) in its environment that hold no refresh
    /// token (access tokens: MSAL removes every access token of the account), never another app's
    /// refresh token; for a `RefreshToken`, the multi-resource and family entries of that user,
    /// environment and client (the one projected into it, or shadowed by it once MSAL saved its own).
    /// See ``search(_:)``.
    public func legacySources(of entries: [(kind: CacheSearch.Kind, entry: JSONObject)]) throws -> [ItemIdentity] {
        try withIndex { index in
            var found: [ItemIdentity] = []
            for (kind, entry) in entries {
                for identity in LegacyProjections.sources(of: entry, kind: kind, index: index) where !found.contains(identity) {
                    found.append(identity)
                }
            }
            return found
        }
    }

    /// The indexed credentials that can match: one account's (and, for access tokens with client and
    /// realm, one list), else all of the kind, in store order.
    private func candidates(
        _ kind: CacheSearch.Kind, homeAccountId: String??, query: JSONObject, index: CacheIndex
    ) -> [IndexedCredential] {
        let byHome: DigestedMap<[IndexedCredential]>
        switch kind {
        case .accessToken:
            // The search matches `environment` exactly: only the tokens stored under it can match.
            var environments: [String]?
            if case .string(let environment)? = query["environment"] { environments = [environment] }
            if case .some(.some(let home)) = homeAccountId, case .string(let client)? = query["client_id"],
               case .string(let realm)? = query["realm"] {
                return index.accessTokens(
                    CacheIndex.AccessTokenKey(homeAccountId: home, clientId: ItemKey.normalized(client), realm: ItemKey.normalized(realm)),
                    environments: environments)
            }
            if case .some(.some(let home)) = homeAccountId { return index.credentials(homeAccountId: home, environments: environments) }
            // `null` matches an absent or null member: the entries without a home account (app
            // tokens), filed under the empty one.
            if case .some(.none) = homeAccountId { return index.credentials(homeAccountId: "", environments: environments) }
            byHome = index.allCredentialsByHomeAccount
        case .refreshToken: byHome = index.refreshTokens
        case .idToken: byHome = index.idTokens
        case .account, .appMetadata: return []
        }
        switch homeAccountId {
        case .some(.some(let home)): return byHome[home] ?? []
        case .some(.none): return []
        case .none: return byHome.values.flatMap { $0 }.sorted { $0.sequence < $1.sequence }
        }
    }

    /// The words of `text` as Python's `str.split()` makes them: runs of anything but white space
    /// (Unicode `White_Space`, and the separators U+001C to U+001F Python counts too).
    static func words(_ text: String) -> [Substring] {
        text.unicodeScalars.split { scalar in
            scalar.value < 0x80
                ? (scalar.value >= 0x09 && scalar.value <= 0x0D) || (scalar.value >= 0x1C && scalar.value <= 0x20)
                : scalar.properties.isWhitespace
        }.map { Substring($0) }
    }

    /// MSAL Python's `is_subdict_of(query, entry)`, with `null` also matching an absent member.
    static func matches(_ entry: JSONObject, _ query: JSONObject) -> Bool {
        for (name, value) in query {
            switch entry[name] {
            case .some(let member): if member != value { return false }
            case .none: if value != .null { return false }
            }
        }
        return true
    }
}
