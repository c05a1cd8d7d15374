import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON

/// A credential's keychain key (`credentialId`, account, service, generic) and the checks before it is stored.
extension Credential {
    // MARK: - Key

    /// `credentialId`: `<type>-<client or family id>-<realm>[-<application identifier>]`, normalized.
    ///
    /// It is the generic attribute and the first part of the service.
    public var credentialId: String {
        // A blank family id ("" is what MSAL writes for "not in a family") does not replace the client
        // id: keying such an RT as `refreshtoken---` would make every app's RT collide.
        let family = familyId.flatMap { $0.isBlank ? nil : $0 }
        let clientPart = ItemKey.normalized(family ?? clientId ?? "")
        let realmPart = ItemKey.normalized(keyRealm ?? "")
        let applicationPart = keyApplicationIdentifier.map { ItemKey.normalized($0) }
        // Appended in place: each `+` of a chain makes a string of its own.
        var id = credentialType.keyString
        id.reserveCapacity(id.utf8.count + clientPart.utf8.count + realmPart.utf8.count + (applicationPart?.utf8.count ?? -1) + 3)
        id += "-"
        id += clientPart
        id += "-"
        id += realmPart
        if let applicationPart {
            id += "-"
            id += applicationPart
        }
        return id
    }

    /// The keychain attributes, per the unified schema:
    /// - account `norm(home_account_id)-norm(environment)`;
    /// - service `credentialId-norm(target)[-norm(token_type)][|<claims hash>][|ext:norm(ext_cache_key)]`;
    /// - generic the UTF-8 of ``credentialId``;
    /// - type the ``CredentialType`` code.
    ///
    /// Which fields take part depends on the kind, as the Apple libraries build them: refresh and
    /// family refresh tokens have neither realm nor target in their key; ID tokens have no target;
    /// only access tokens carry the token type and the application identifier. Other kinds use every
    /// field they have.
    public var key: ItemKey {
        let id = credentialId
        let targetPart = ItemKey.normalized(keyTarget ?? "")
        let tokenTypePart = keyTokenType.map { ItemKey.normalized($0) }
        var service = id
        service.reserveCapacity(id.utf8.count + targetPart.utf8.count + (tokenTypePart?.utf8.count ?? -1) + 2)
        service += "-"
        service += targetPart
        if let tokenTypePart {
            service += "-"
            service += tokenTypePart
        }
        if let requestedClaims, !requestedClaims.isBlank { service += "|" + requestedClaimsHash(requestedClaims) }
        // Not in the Apple libraries' keys: MSAL Python and Go key such tokens apart, so the store must too.
        if let extKey = keyExtCacheKey { service += "|ext:" + ItemKey.normalized(extKey) }
        return ItemKey(
            account: ItemKey.account(homeAccountId: homeAccountId, environment: environment),
            service: service,
            generic: Data(id.utf8),
            type: credentialType.typeCode
        )
    }

    /// Refuses a timestamp outside ``UnixTime/range``: the reader would refuse the item, so it is
    /// not written.
    public func checkStorable() throws(SchemaError) {
        for (field, seconds) in [
            (Field.cachedAt, cachedAt), (Field.expiresOn, expiresOn), (Field.extendedExpiresOn, extendedExpiresOn),
            (Field.refreshOn, refreshOn),
        ] {
            if let seconds, !UnixTime.range.contains(seconds) {
                throw .invalidField(field, reason: "is \(seconds), out of range: it must be \(UnixTime.rangeDescription)", item: nil)
            }
        }
    }

    var keyRealm: String? {
        switch credentialType {
        case .refreshToken, .familyRefreshToken: nil
        default: realm
        }
    }

    var keyTarget: String? {
        switch credentialType {
        case .refreshToken, .familyRefreshToken, .idToken, .v1IdToken: nil
        default: target
        }
    }

    var keyTokenType: String? {
        switch credentialType {
        case .refreshToken, .familyRefreshToken, .idToken, .v1IdToken: nil
        default: storedTokenType
        }
    }

    var keyExtCacheKey: String? {
        switch credentialType {
        case .refreshToken, .familyRefreshToken, .idToken, .v1IdToken: nil
        default: extCacheKey.flatMap { $0.isBlank ? nil : $0 }
        }
    }

    var keyApplicationIdentifier: String? {
        switch credentialType {
        case .refreshToken, .familyRefreshToken, .idToken, .v1IdToken: nil
        default: applicationIdentifier
        }
    }
}
