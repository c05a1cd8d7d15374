import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
    ///
    /// Read from the store's payload the first time any result holding it asks, then kept.
    public var credential: Credential { box.credential }
    /// Where it is stored.
    public var identity: ItemIdentity { box.identity }
    public let source: Source

    /// Shared with the index: a result costs one reference, not a copy of the credential.
    private let box: CredentialBox

    init(_ indexed: IndexedCredential) {
        box = indexed.box
        source = .unified
    }

    /// The refresh token of a legacy ADAL entry, as a unified refresh token.
    init(refreshTokenOf legacy: IndexedLegacyToken) {
        let credential = Credential(
            credentialType: .refreshToken,
            secret: legacy.item.refreshToken ?? "",
            clientId: legacy.item.clientId,
            homeAccountId: legacy.homeAccountId.isEmpty ? nil : legacy.homeAccountId,
            environment: legacy.environment,
            familyId: legacy.item.effectiveFamilyId,
            cachedAt: legacy.item.cachedAt.map(UnixTime.clampedSeconds))
        box = CredentialBox(credential, identity: legacy.identity)
        source = .legacyADAL
    }

    public static func == (lhs: StoredCredential, rhs: StoredCredential) -> Bool {
        lhs.source == rhs.source && (lhs.box === rhs.box || (lhs.identity == rhs.identity && lhs.credential == rhs.credential))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(identity)
        hasher.combine(credential)
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
