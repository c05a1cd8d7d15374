import TokenCacheJSON
import TokenCacheSchema

/// A search as MSAL Python's `TokenCache.search(credential_type, target, query)` makes it.
///
/// Entries are compared in their MSAL JSON entry form (``TokenCacheSchema/Credential/msalEntry``):
/// an entry matches when it has every member of ``query`` with exactly that value (the query's
/// `environment` lower-cased first, as MSAL does) and, when ``target`` is not empty, its `target`
/// holds every scope of it (split at white space, compared exactly). A query member whose value is
/// `null` also matches an entry without that member: MSAL Python writes `"home_account_id": null`
/// for app tokens, where other libraries leave the member out.
public struct CacheSearch: Sendable, Hashable {
    /// The section searched: MSAL's credential types plus accounts and app metadata.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case accessToken = "AccessToken"
        case refreshToken = "RefreshToken"
        case idToken = "IdToken"
        case account = "Account"
        case appMetadata = "AppMetadata"
    }

    public var kind: Kind
    /// Exact-match members.
    public var query: JSONObject
    /// Scopes the entry's `target` must include; empty for none.
    public var target: [String]
    /// Seconds since 1970: access tokens that expire before it are left out; `nil` is the engine's
    /// clock.
    public var now: Int64?

    public init(kind: Kind, query: JSONObject = JSONObject(), target: [String] = [], now: Int64? = nil) {
        self.kind = kind
        self.query = query
        self.target = target
        self.now = now
    }
}
