import CacheStore
import Foundation
import TokenCacheSchema

/// A credential found by a lookup, with where it is stored.
public struct StoredCredential: Sendable, Hashable {
    /// The decoded item (its `secret` is the token).
    public let credential: Credential
    /// Where it is stored.
    public let identity: ItemIdentity

    init(_ indexed: IndexedCredential) {
        credential = indexed.credential
        identity = indexed.identity
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
