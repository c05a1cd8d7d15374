import CacheStore
import TokenCacheJSON
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
    ///
    /// It refers to the index's entries rather than copying them, so listing a thousand accounts
    /// copies no records; the fields are read from them when asked for.
    public struct TenantProfile: Sendable, Hashable {
        /// The tenant id.
        public var realm: String { record.realm }
        /// The account's object id in that tenant.
        public var localAccountId: String? { record.account.localAccountId }
        /// Whether this is the account's home tenant (the `utid` of its home account id).
        public let isHomeTenant: Bool
        /// The claims of the tenant's ID token, when one is cached for the app (or any app).
        public var idTokenClaims: JSONObject? {
            switch claims {
            case .idToken(let token): token?.claims
            case .parsed(let claims): claims
            }
        }
        /// The stored account record (for a legacy ADAL account, one built from its ID token).
        public var account: Account { record.account }
        /// Where the record is stored.
        public var identity: ItemIdentity { record.identity }

        private let record: IndexedAccount
        private let claims: Claims

        private enum Claims: Sendable {
            /// Parsed from the ID token on first use (and kept by the index).
            case idToken(IndexedCredential?)
            case parsed(JSONObject?)
        }

        /// A profile of a stored account record, with the ID token chosen for it.
        init(record: IndexedAccount, isHomeTenant: Bool, idToken: IndexedCredential?) {
            self.record = record
            self.isHomeTenant = isHomeTenant
            claims = .idToken(idToken)
        }

        /// A profile of an account built from a legacy entry, with that entry's claims.
        init(account: Account, identity: ItemIdentity, isHomeTenant: Bool, idTokenClaims: JSONObject?) {
            record = IndexedAccount(account, identity: identity)
            self.isHomeTenant = isHomeTenant
            claims = .parsed(idTokenClaims)
        }

        public static func == (lhs: TenantProfile, rhs: TenantProfile) -> Bool {
            lhs.isHomeTenant == rhs.isHomeTenant && lhs.realm == rhs.realm && lhs.identity == rhs.identity
                && lhs.account == rhs.account && lhs.idTokenClaims == rhs.idTokenClaims
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(realm)
            hasher.combine(identity)
            hasher.combine(isHomeTenant)
        }
    }
}
