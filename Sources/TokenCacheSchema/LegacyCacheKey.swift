import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The keychain attributes of a legacy ADAL item (ADAL 1.x/2.x, and ADAL ≥ 2.7 through IdentityCore).
///
/// - generic: `MSOpenTech.ADAL.1`; no type.
/// - account: `b64url(norm(userId))`, or `""` when the user is unknown.
/// - service: `MSOpenTech.ADAL.1|b64url(norm(authority))|<resource>|b64url(norm(clientId))`, where
///   `<resource>` is `b64url(norm(resource))` or, for multi-resource refresh tokens (no resource),
///   the nil key `CC3513A0-0E69-4B4D-97FC-DFB6C91EE132`. With an application identifier the prefix
///   is `MSOpenTech.ADAL.1-b64url(applicationIdentifier)`.
public struct LegacyCacheKey: Sendable, Hashable {
    /// The library string in every legacy service and in the generic attribute.
    public static let libraryString = "MSOpenTech.ADAL.1"
    /// The resource part of a key without a resource (MRRT and FRT entries).
    public static let nilResourceKey = "CC3513A0-0E69-4B4D-97FC-DFB6C91EE132"
    /// The client id prefix of family refresh token entries: `foci-<family id>`.
    public static let familyClientIdPrefix = "foci-"

    public var authority: String
    public var resource: String?
    public var clientId: String
    /// The user's displayable id (UPN), or `nil` for an entry without a user.
    public var userId: String?
    public var applicationIdentifier: String?

    public init(authority: String, resource: String?, clientId: String, userId: String?, applicationIdentifier: String? = nil) {
        self.authority = authority
        self.resource = resource
        self.clientId = clientId
        self.userId = userId
        self.applicationIdentifier = applicationIdentifier
    }

    /// `kSecAttrAccount`.
    public var account: String {
        let normalized = ItemKey.normalized(userId ?? "")
        return normalized.isEmpty ? "" : Base64URL.encode(normalized)
    }

    /// `kSecAttrService`.
    public var service: String {
        var prefix = Self.libraryString
        if let applicationIdentifier { prefix += "-" + Base64URL.encode(applicationIdentifier) }
        let resourcePart = resource.flatMap { ItemKey.normalized($0).isEmpty ? nil : Base64URL.encode(ItemKey.normalized($0)) } ?? Self.nilResourceKey
        return [prefix, Base64URL.encode(ItemKey.normalized(authority)), resourcePart, Base64URL.encode(ItemKey.normalized(clientId))].joined(separator: "|")
    }

    /// `kSecAttrGeneric`.
    public static var generic: Data { Data(libraryString.utf8) }

    /// The identity of the item with this key in `accessGroup`.
    public func identity(accessGroup: String) -> ItemIdentity {
        ItemIdentity(accessGroup: accessGroup, account: account, service: service, type: nil)
    }

    /// The authority, resource and client id a service string names; `nil` unless it has exactly
    /// four `|`-separated parts starting with the library string (as IdentityCore parses it).
    public static func components(ofService service: String) -> (authority: String, resource: String?, clientId: String)? {
        let parts = service.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0].hasPrefix(libraryString),
            let authority = Base64URL.decodeString(parts[1]),
            let clientId = Base64URL.decodeString(parts[3])
        else { return nil }
        if parts[2] == nilResourceKey { return (authority, nil, clientId) }
        guard let resource = Base64URL.decodeString(parts[2]) else { return nil }
        return (authority, resource, clientId)
    }

    /// The user id an account attribute encodes; `nil` for `""` or text that is not base64url.
    public static func userId(ofAccount account: String) -> String? {
        account.isEmpty ? nil : Base64URL.decodeString(account)
    }
}
