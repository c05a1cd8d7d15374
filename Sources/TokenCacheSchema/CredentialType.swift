/// The kind of a credential item; its raw value is the keychain type code (`2000 + MSIDCredentialType`).
public enum CredentialType: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `token`: a credential of no known kind (what the Apple libraries read an unknown `credential_type` as).
    case other = 2000
    /// `AccessToken` (Bearer).
    case accessToken = 2001
    /// `RefreshToken`, including the FOCI copy keyed by family id.
    case refreshToken = 2002
    /// `IdToken`.
    case idToken = 2003
    /// An ADAL single-resource token; never stored as JSON by MSAL.
    case legacySingleResourceToken = 2004
    /// A broker primary refresh token.
    case primaryRefreshToken = 2005
    /// `V1IdToken`: an ADAL (v1 endpoint) ID token.
    case v1IdToken = 2006
    /// An access token with an auth scheme other than Bearer (PoP, SSH certificate).
    case accessTokenWithAuthScheme = 2007
    /// The single family refresh token of the newer FRT model.
    case familyRefreshToken = 2008
    /// A device-bound (app) refresh token.
    case boundRefreshToken = 2009

    /// The keychain `type` attribute.
    public var typeCode: UInt32 { rawValue }

    /// The kind for a keychain `type` attribute; `nil` outside 2000...2009.
    public init?(typeCode: UInt32) {
        self.init(rawValue: typeCode)
    }

    /// The `credential_type` JSON value, e.g. `AccessToken`.
    public var jsonString: String {
        switch self {
        case .other: "token"
        case .accessToken: "AccessToken"
        case .refreshToken: "RefreshToken"
        case .idToken: "IdToken"
        case .legacySingleResourceToken: "LegacySingleResourceToken"
        case .primaryRefreshToken: "PrimaryRefreshToken"
        case .v1IdToken: "V1IdToken"
        case .accessTokenWithAuthScheme: "AccessToken_With_AuthScheme"
        case .familyRefreshToken: "FamilyRefreshToken"
        case .boundRefreshToken: "BoundRefreshToken"
        }
    }

    /// The lower-case form used in keychain keys, e.g. `accesstoken`.
    public var keyString: String { jsonString.lowercased() }

    /// The kind named by a `credential_type` value, compared case-insensitively (`IDToken` is an ID
    /// token); `nil` for an unknown name.
    public init?(jsonString: String) {
        let wanted = jsonString.lowercased()
        guard let match = CredentialType.allCases.first(where: { $0.keyString == wanted }) else { return nil }
        self = match
    }

    public var description: String { jsonString }
}
