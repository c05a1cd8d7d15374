/// What an access-token lookup asks for.
public struct AccessTokenQuery: Sendable, Hashable {
    /// `uid.utid` of the account.
    public var homeAccountId: String
    /// The environment asked for; tokens stored under any alias of it match.
    public var environment: String
    /// The tenant. `nil` matches any tenant; `common`, `organizations` and `consumers` stand for the
    /// account's home tenant (the `utid` of its home account id), as in MSAL's silent flow — except
    /// `organizations` for an account whose home tenant is the MSA tenant.
    public var realm: String?
    public var clientId: String
    /// Every scope must be among the token's (case-insensitive); `openid`, `profile` and
    /// `offline_access` are ignored.
    public var scopes: [String]
    /// `nil` or `Bearer` for ordinary tokens; `pop`, `ssh-cert`, … for tokens with an auth scheme.
    public var tokenType: String?
    /// The proof-of-possession key id the token must be bound to.
    public var keyId: String?
    /// The claims request; unless both are blank, it must equal the token's exactly.
    public var requestedClaims: String?
    /// The application identifier part of MSAL ObjC keys; must equal the token's.
    public var applicationIdentifier: String?
    /// MSAL Python's and Go's extended cache key; must equal the token's (case-insensitive), and a
    /// query without one finds only tokens without one.
    public var extCacheKey: String?

    public init(
        homeAccountId: String,
        environment: String,
        realm: String? = nil,
        clientId: String,
        scopes: [String],
        tokenType: String? = nil,
        keyId: String? = nil,
        requestedClaims: String? = nil,
        applicationIdentifier: String? = nil,
        extCacheKey: String? = nil
    ) {
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.realm = realm
        self.clientId = clientId
        self.scopes = scopes
        self.tokenType = tokenType
        self.keyId = keyId
        self.requestedClaims = requestedClaims
        self.applicationIdentifier = applicationIdentifier
        self.extCacheKey = extCacheKey
    }
}

/// What a refresh-token lookup asks for.
public struct RefreshTokenQuery: Sendable, Hashable {
    /// Who: a home account id, or a username resolved through the account records.
    public enum Subject: Sendable, Hashable {
        case homeAccountId(String)
        case username(String)
    }

    public var subject: Subject
    public var clientId: String
    /// When set, the family refresh token of this family is wanted instead of the app's own.
    public var familyId: String?
    /// `nil` matches any environment; otherwise any alias of it.
    public var environment: String?

    public init(subject: Subject, clientId: String, familyId: String? = nil, environment: String? = nil) {
        self.subject = subject
        self.clientId = clientId
        self.familyId = familyId
        self.environment = environment
    }
}
