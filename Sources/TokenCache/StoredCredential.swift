import CacheStore
import Foundation
import TokenCacheSchema

/// A credential found by a lookup, with where it is stored.
public struct StoredCredential: Sendable, Hashable {
    /// Which kind of item a credential was found in.
    public enum Source: Sendable, Hashable {
        /// A unified-schema item.
        case unified
        /// A legacy ADAL entry (`MSOpenTech.ADAL.1|…`), shown in unified form.
        case legacyADAL
    }

    /// The decoded item (its `secret` is the token). For a legacy ADAL entry, the unified view of it.
    public let credential: Credential
    /// Where it is stored.
    public let identity: ItemIdentity
    public let source: Source

    init(_ indexed: IndexedCredential) {
        credential = indexed.credential
        identity = indexed.identity
        source = .unified
    }

    /// The refresh token of a legacy ADAL entry, as a unified refresh token.
    init(refreshTokenOf legacy: IndexedLegacyToken) {
        credential = Credential(
            credentialType: .refreshToken,
            secret: legacy.item.refreshToken ?? "",
            clientId: legacy.item.clientId,
            homeAccountId: legacy.homeAccountId.isEmpty ? nil : legacy.homeAccountId,
            environment: legacy.environment,
            familyId: legacy.item.effectiveFamilyId,
            cachedAt: legacy.item.cachedAt.map { Int64($0.timeIntervalSince1970) })
        identity = legacy.identity
        source = .legacyADAL
    }
}

/// An access token found by ``TokenCache/accessToken(_:)``.
public struct FoundAccessToken: Sendable, Hashable {
    public let stored: StoredCredential
    /// When the token expires.
    public let expiresOn: Date
    /// When the token should be refreshed proactively, if the server said so.
    public let refreshOn: Date?
    /// Whether ``refreshOn`` has passed: the token is still valid, but the library should refresh it.
    public let needsRefresh: Bool

    public var credential: Credential { stored.credential }
}
