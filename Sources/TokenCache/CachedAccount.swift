import CacheStore
import TokenCacheSchema

/// One account as an app sees it: a home account with its tenant profiles (one per tenant it has
/// signed in to), merged from the account records of every tenant.
///
/// Accounts known only from legacy ADAL entries are listed too (``source`` ``Source/legacyADAL``),
/// built from their ID token as MSAL builds them.
public struct CachedAccount: Sendable, Hashable {
    /// Where the account comes from.
    public enum Source: Sendable, Hashable {
        /// Unified account records.
        case unified
        /// Legacy ADAL token entries only (ADAL 1.x/2.x never wrote account records).
        case legacyADAL
    }

    /// `uid.utid`, lower-cased; empty for a legacy ADAL account whose entries do not carry it.
    public let homeAccountId: String
    /// The environment of the records, the preferred cache host first.
    public let environment: String
    /// The username (`preferred_username`) of the home-tenant profile, else of the first profile.
    public let username: String?
    /// The display name, chosen like ``username``.
    public let name: String?
    public let tenantProfiles: [TenantProfile]
    public let source: Source

    /// The account in one tenant.
    public struct TenantProfile: Sendable, Hashable {
        /// The tenant id.
        public let realm: String
        /// The account's object id in that tenant.
        public let localAccountId: String?
        /// Whether this is the account's home tenant (the `utid` of its home account id).
        public let isHomeTenant: Bool
        /// The claims of the tenant's ID token, when one is cached for the app (or any app).
        public let idTokenClaims: JSONObject?
        /// The stored account record (for a legacy ADAL account, one built from its ID token).
        public let account: Account
        /// Where the record is stored.
        public let identity: ItemIdentity
    }
}
