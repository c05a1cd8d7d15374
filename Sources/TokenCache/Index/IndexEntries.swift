import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
@_spi(Indexing) import TokenCacheSchema

/// Something the index keeps in lists that follow the store's order.
///
/// Entries are classes: lookups walk lists of them, and copying a reference is one retain where
/// copying a decoded credential would be dozens.
protocol Sequenced: AnyObject {
    var identity: ItemIdentity { get }
    var sequence: Int { get }
}

/// A credential as the index holds it: the normalized fields lookups compare, read once, with the
/// full credential behind a ``CredentialBox`` that decodes it on first use.
final class IndexedCredential: Sendable, Sequenced {
    let box: CredentialBox
    /// Where the item is stored (its own attributes, which may differ from the key it would get today).
    var identity: ItemIdentity { box.identity }
    let credentialType: CredentialType
    let homeAccountId: String
    let environment: String
    let clientId: String
    /// Empty when the credential is not a family token.
    let familyId: String
    let realm: String
    /// Access tokens only.
    let scopes: ScopeSet
    /// `bearer` when the item names none.
    let tokenType: String
    /// Normalized; empty when the item names none.
    let keyId: String
    /// As stored; `nil` when absent or blank (blank claims match no claims).
    let requestedClaims: String?
    /// Normalized; empty when the item names none.
    let applicationIdentifier: String
    /// Normalized; `nil` when absent or blank.
    let extCacheKey: String?
    let expiresOn: Int64?
    let cachedAt: Int64?
    let refreshOn: Int64?
    /// ID tokens only: the claims, parsed the first time they are asked for (listing accounts), not
    /// while the index is built (opening a cache).
    let lazyClaims: LazyClaims?

    /// The full credential (decoded on first use).
    var credential: Credential { box.credential }
    var claims: JSONObject? { lazyClaims?.value }
    /// Position in the store's order (first added first); a replaced item keeps its position.
    let sequence: Int

    /// Whether this is an access token (2001, or 2007 with an auth scheme): filed by
    /// ``accessTokenKey``, and deferred at open (``DeferredAccessTokens``).
    var isAccessToken: Bool { credentialType == .accessToken || credentialType == .accessTokenWithAuthScheme }

    var accessTokenKey: CacheIndex.AccessTokenKey {
        CacheIndex.AccessTokenKey(homeAccountId: homeAccountId, clientId: clientId, realm: realm)
    }

    /// An entry for `credential`, whose full content is in `box` (`credential` may be a partial read
    /// of it: only the fields compared here are used).
    init(_ credential: Credential, box: CredentialBox, sequence: Int = 0) {
        self.sequence = sequence
        self.box = box
        credentialType = credential.credentialType
        homeAccountId = ItemKey.normalized(credential.homeAccountId ?? "")
        environment = CloudAliases.known.canonicalHost(ItemKey.normalized(credential.environment ?? ""))
        clientId = ItemKey.normalized(credential.clientId ?? "")
        familyId = ItemKey.normalized(credential.familyId ?? "")
        realm = ItemKey.normalized(credential.realm ?? "")
        scopes = ScopeSet(credential.target ?? "")
        tokenType = ItemKey.normalized(credential.tokenType ?? "bearer")
        keyId = ItemKey.normalized(credential.keyId ?? "")
        requestedClaims = credential.requestedClaims.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        applicationIdentifier = ItemKey.normalized(credential.applicationIdentifier ?? "")
        extCacheKey = credential.extCacheKey.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : ItemKey.normalized($0) }
        expiresOn = credential.expiresOn
        cachedAt = credential.cachedAt
        refreshOn = credential.refreshOn
        switch credential.credentialType {
        case .idToken, .v1IdToken: lazyClaims = LazyClaims(box)
        default: lazyClaims = nil
        }
    }

    /// An entry for a credential in hand (one being saved).
    convenience init(_ credential: Credential, identity: ItemIdentity, sequence: Int = 0) {
        self.init(credential, box: CredentialBox(credential, identity: identity), sequence: sequence)
    }
}

final class IndexedAccount: Sendable, Sequenced {
    let account: Account
    let identity: ItemIdentity
    let homeAccountId: String
    let environment: String
    let realm: String
    /// Normalized.
    let username: String?
    let sequence: Int

    init(_ account: Account, identity: ItemIdentity, sequence: Int = 0) {
        self.sequence = sequence
        self.account = account
        self.identity = identity
        homeAccountId = ItemKey.normalized(account.homeAccountId ?? "")
        environment = ItemKey.normalized(account.environment ?? "")
        realm = ItemKey.normalized(account.realm ?? "")
        username = account.username.map(ItemKey.normalized)
    }
}

/// A legacy ADAL token entry as the index holds it.
final class IndexedLegacyToken: Sendable, Sequenced {
    let item: LegacyTokenCacheItem
    let identity: ItemIdentity
    /// The user the entry is stored for: the account attribute decoded, else the ID token's
    /// displayable id; normalized; empty when unknown.
    let userId: String
    /// The authority's host (lower-cased, with a port other than 443).
    let environment: String
    /// The authority's tenant path segment (`common`, a tenant id, …), lower-cased.
    let authorityTenant: String
    /// Normalized; empty when the entry does not say (ADAL before IdentityCore).
    let homeAccountId: String
    let claims: JSONObject?
    let sequence: Int

    init(_ item: LegacyTokenCacheItem, identity: ItemIdentity, sequence: Int = 0) {
        self.sequence = sequence
        self.item = item
        self.identity = identity
        userId = ItemKey.normalized(LegacyCacheKey.userId(ofAccount: identity.account) ?? item.userId ?? "")
        let authority = URLComponents(string: item.authority)
        var host = authority?.host?.lowercased() ?? ""
        if let port = authority?.port, port != 443 { host += ":\(port)" }
        environment = host
        authorityTenant = authority?.path.split(separator: "/").first.map { $0.lowercased() } ?? ""
        homeAccountId = ItemKey.normalized(item.homeAccountId ?? "")
        claims = item.idTokenClaims
    }

    /// Whether the entry can refresh: a multi-resource, family or single-resource refresh token.
    var hasRefreshToken: Bool { item.kind != .accessToken }
}

final class IndexedAppMetadata: Sendable, Sequenced {
    let metadata: AppMetadata
    let identity: ItemIdentity
    let clientId: String
    let environment: String
    /// Normalized; empty when the app is in no family.
    let familyId: String
    let sequence: Int

    init(_ metadata: AppMetadata, identity: ItemIdentity, sequence: Int = 0) {
        self.sequence = sequence
        self.metadata = metadata
        self.identity = identity
        clientId = ItemKey.normalized(metadata.clientId ?? "")
        environment = ItemKey.normalized(metadata.environment ?? "")
        familyId = ItemKey.normalized(metadata.familyId ?? "")
    }
}
