import TokenCacheSchema

/// The five known sections of the MSAL unified JSON cache.
public enum MSALSection: String, Sendable, Hashable, CaseIterable {
    case accessToken = "AccessToken"
    case refreshToken = "RefreshToken"
    case idToken = "IdToken"
    case account = "Account"
    case appMetadata = "AppMetadata"

    /// The section a top-level name stands for, compared case-insensitively as MSAL.NET does.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let match = MSALSection.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = match
    }

    /// The section of an MSAL.NET 2.x dictionary key (`access_tokens`, …); it has no app metadata.
    init?(dictionaryKey: String) {
        switch dictionaryKey {
        case "access_tokens": self = .accessToken
        case "refresh_tokens": self = .refreshToken
        case "id_tokens": self = .idToken
        case "accounts": self = .account
        default: return nil
        }
    }

    /// The credential kind an entry of this section is read as when its `credential_type` is
    /// missing or names a kind that does not belong in the section.
    var defaultCredentialType: CredentialType? {
        switch self {
        case .accessToken: .accessToken
        case .refreshToken: .refreshToken
        case .idToken: .idToken
        case .account, .appMetadata: nil
        }
    }

    /// The credential kinds an entry of this section may declare.
    func accepts(_ kind: CredentialType) -> Bool {
        switch self {
        case .accessToken: [.accessToken, .accessTokenWithAuthScheme].contains(kind)
        case .refreshToken: [.refreshToken, .familyRefreshToken].contains(kind)
        case .idToken: [.idToken, .v1IdToken].contains(kind)
        case .account, .appMetadata: false
        }
    }
}
