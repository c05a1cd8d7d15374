import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON

/// A credential item of the unified cache: access token, refresh token, ID token, family refresh
/// token, and the rarer kinds of ``CredentialType``.
///
/// Known fields are typed; every other JSON member is kept in ``additionalFields`` and written back,
/// so a read-modify-write loses nothing another library stored. A known field set to `nil` is
/// removed from the payload.
///
/// Timestamps are whole seconds since 1970, written as JSON strings of decimal digits.
public struct Credential: SchemaItem {
    /// The secret of a tombstone: an item the Apple libraries delete when they meet it.
    public static let tombstoneSecret = "<tombstone>"

    /// The payload key of each known field.
    public enum Field {
        /// The `credential_type` member.
        public static let credentialType = "credential_type"
        /// The `client_id` member.
        public static let clientId = "client_id"
        /// The `secret` member.
        public static let secret = "secret"
        /// The `home_account_id` member.
        public static let homeAccountId = "home_account_id"
        /// The `environment` member.
        public static let environment = "environment"
        /// The `realm` member.
        public static let realm = "realm"
        /// The `target` member.
        public static let target = "target"
        /// The `family_id` member.
        public static let familyId = "family_id"
        /// The `cached_at` member.
        public static let cachedAt = "cached_at"
        /// The `expires_on` member.
        public static let expiresOn = "expires_on"
        /// The `extended_expires_on` member.
        public static let extendedExpiresOn = "extended_expires_on"
        /// The older MSAL.NET name of `extended_expires_on`: read as a fallback, kept in sync when present.
        public static let extendedExpiresOnLegacy = "ext_expires_on"
        /// The `refresh_on` member.
        public static let refreshOn = "refresh_on"
        /// The `token_type` member.
        public static let tokenType = "token_type"
        /// The `kid` member.
        public static let keyId = "kid"
        /// Python's and msal-node's name of the key id; read, then written as `kid`.
        public static let keyIdSnakeCase = "key_id"
        /// MSAL Go's name of the key id; read, then written as `kid`.
        public static let keyIdGo = "keyid"
        /// The `requested_claims` member.
        public static let requestedClaims = "requested_claims"
        /// The `enrollment_id` member.
        public static let enrollmentId = "enrollment_id"
        /// The `application_cache_identifier` member.
        public static let applicationIdentifier = "application_cache_identifier"
        /// The `redirect_uri` member.
        public static let redirectUri = "redirect_uri"
        /// The `spe_info` member.
        public static let speInfo = "spe_info"
        /// The `client_info` member.
        public static let clientInfo = "client_info"
        /// The `user_assertion_hash` member.
        public static let userAssertionHash = "user_assertion_hash"
        /// The `ext_cache_key` member (MSAL Python and Go): a hash of the request's extra parameters.
        public static let extCacheKey = "ext_cache_key"
    }

    /// The kind; decides the keychain type code and which fields go into the key.
    public var credentialType: CredentialType
    /// `client_id`, case preserved (keys lower-case it).
    public var clientId: String?
    /// `secret`: the token itself. Required in every payload.
    public var secret: String
    /// `home_account_id`: `uid.utid`.
    public var homeAccountId: String?
    /// `environment`: the authority host, e.g. `login.microsoftonline.com`.
    public var environment: String?
    /// `realm`: the tenant id (access and ID tokens).
    public var realm: String?
    /// `target`: space-separated scopes as the server returned them, case preserved.
    public var target: String?
    /// `family_id`: `"1"` for FOCI tokens; when set and not blank it replaces the client id in the key.
    public var familyId: String?
    /// `cached_at`, seconds since 1970.
    public var cachedAt: Int64?
    /// `expires_on`, seconds since 1970.
    public var expiresOn: Int64?
    /// `extended_expires_on` (or, when absent or zero, `ext_expires_on`), seconds since 1970.
    public var extendedExpiresOn: Int64?
    /// `refresh_on`, seconds since 1970.
    public var refreshOn: Int64?
    /// `token_type`, for access tokens with an auth scheme (`Pop`, `ssh-cert`). `Bearer` is never
    /// written: it is the default, and neither Apple library nor MSAL.NET stores it.
    public var tokenType: String?
    /// The PoP / SSH key id, written as `kid` (read from `kid`, `key_id` or `keyid`).
    public var keyId: String?
    /// `requested_claims`: the claims the token was requested with; hashed into the service.
    public var requestedClaims: String?
    /// `enrollment_id`: the Intune enrollment id.
    public var enrollmentId: String?
    /// `application_cache_identifier`: becomes part of an access token's key.
    public var applicationIdentifier: String?
    /// `redirect_uri` (nested auth).
    public var redirectUri: String?
    /// `spe_info`.
    public var speInfo: String?
    /// `client_info`: the raw base64url client info (MSAL.NET writes it on every item).
    public var clientInfo: String?
    /// `user_assertion_hash` (on-behalf-of tokens).
    public var userAssertionHash: String?
    /// `ext_cache_key`: MSAL Python's and Go's hash of a request's extra parameters (an `fmi_path`,
    /// forwarded client claims). Access tokens that differ only in it are different items.
    public var extCacheKey: String?
    /// Every payload member this model does not know, written back unchanged.
    public var additionalFields: JSONObject

    /// The `credential_type` text read when it named no known kind (MSAL.NET's `ATExt`, say):
    /// written back unchanged while ``credentialType`` stays ``CredentialType/other``.
    private var unrecognizedTypeName: String?

    /// Creates a credential. Only the kind and the secret are required by the schema; a usable key
    /// also needs the client id, home account id and environment.
    public init(
        credentialType: CredentialType,
        secret: String,
        clientId: String? = nil,
        homeAccountId: String? = nil,
        environment: String? = nil,
        realm: String? = nil,
        target: String? = nil,
        familyId: String? = nil,
        cachedAt: Int64? = nil,
        expiresOn: Int64? = nil,
        extendedExpiresOn: Int64? = nil,
        refreshOn: Int64? = nil,
        tokenType: String? = nil,
        keyId: String? = nil,
        requestedClaims: String? = nil,
        enrollmentId: String? = nil,
        applicationIdentifier: String? = nil,
        redirectUri: String? = nil,
        speInfo: String? = nil,
        clientInfo: String? = nil,
        userAssertionHash: String? = nil,
        extCacheKey: String? = nil,
        additionalFields: JSONObject = JSONObject()
    ) {
        self.credentialType = credentialType
        self.secret = secret
        self.clientId = clientId
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.realm = realm
        self.target = target
        self.familyId = familyId
        self.cachedAt = cachedAt
        self.expiresOn = expiresOn
        self.extendedExpiresOn = extendedExpiresOn
        self.refreshOn = refreshOn
        self.tokenType = tokenType
        self.keyId = keyId
        self.requestedClaims = requestedClaims
        self.enrollmentId = enrollmentId
        self.applicationIdentifier = applicationIdentifier
        self.redirectUri = redirectUri
        self.speInfo = speInfo
        self.clientInfo = clientInfo
        self.userAssertionHash = userAssertionHash
        self.extCacheKey = extCacheKey
        self.additionalFields = additionalFields
    }

    /// Whether this is a tombstone (`secret` is `<tombstone>`).
    public var isTombstone: Bool { secret == Self.tombstoneSecret }

    // MARK: - JSON

    /// Reads a payload object.
    ///
    /// An unknown `credential_type` reads as ``CredentialType/other`` (as the Apple libraries do)
    /// and is written back as it was; a missing one reads as `typeHint` (the item's type code) when
    /// given, else as ``CredentialType/other``.
    ///
    /// - Throws: ``SchemaError/missingField(_:item:)`` without `secret`;
    ///   ``SchemaError/invalidField(_:reason:item:)`` for a known field of the wrong kind.
    public init(jsonObject: JSONObject, typeHint: CredentialType?) throws(SchemaError) {
        var fields = PayloadFields(jsonObject)
        let typeName = try fields.string(Field.credentialType)
        guard let secret = try fields.string(Field.secret) else { throw .missingField(Field.secret, item: nil) }
        self.init(credentialType: .other, secret: secret)
        if let typeName {
            if let kind = CredentialType(jsonString: typeName) {
                credentialType = kind
            } else {
                unrecognizedTypeName = typeName
            }
        } else if let typeHint {
            credentialType = typeHint
        }
        clientId = try fields.string(Field.clientId)
        homeAccountId = try fields.string(Field.homeAccountId)
        environment = try fields.string(Field.environment)
        realm = try fields.string(Field.realm)
        target = try fields.string(Field.target)
        familyId = try fields.string(Field.familyId)
        cachedAt = try fields.timestamp(Field.cachedAt)
        expiresOn = try fields.timestamp(Field.expiresOn)
        extendedExpiresOn = try fields.timestamp(Field.extendedExpiresOn)
        // `ext_expires_on` stays among the additional fields (MSAL.NET writes both names); it is
        // only read when `extended_expires_on` says nothing, and kept in sync on write.
        if extendedExpiresOn == nil || extendedExpiresOn == 0 {
            extendedExpiresOn = try fields.peekTimestamp(Field.extendedExpiresOnLegacy) ?? extendedExpiresOn
        }
        refreshOn = try fields.timestamp(Field.refreshOn)
        tokenType = try fields.string(Field.tokenType)
        let kid = try fields.string(Field.keyId)
        let keyIdSnake = try fields.string(Field.keyIdSnakeCase)
        let keyIdGo = try fields.string(Field.keyIdGo)
        keyId = kid ?? keyIdSnake ?? keyIdGo
        requestedClaims = try fields.string(Field.requestedClaims)
        enrollmentId = try fields.string(Field.enrollmentId)
        applicationIdentifier = try fields.string(Field.applicationIdentifier)
        redirectUri = try fields.string(Field.redirectUri)
        speInfo = try fields.string(Field.speInfo)
        clientInfo = try fields.string(Field.clientInfo)
        userAssertionHash = try fields.string(Field.userAssertionHash)
        extCacheKey = try fields.string(Field.extCacheKey)
        additionalFields = fields.remaining
    }

    /// Reads a payload object that must name its `credential_type`.
    public init(jsonObject: JSONObject) throws(SchemaError) {
        try self.init(jsonObject: jsonObject, typeHint: nil)
    }

    /// Reads a JSON payload (UTF-8, BOM and `\/` escapes accepted); see ``init(jsonObject:typeHint:)``.
    public init(jsonData: Data, typeHint: CredentialType?) throws(SchemaError) {
        try self.init(jsonObject: PayloadFields.object(from: jsonData), typeHint: typeHint)
    }

    public static func isStored(asType type: UInt32?) -> Bool { type.flatMap(CredentialType.init(typeCode:)) != nil }
    public static let storedKind = "a credential (type 2000...2009)"

    /// Reads a stored credential item; errors name the item.
    ///
    /// - Throws: ``SchemaError/wrongItemType(expected:item:)`` when the item's type is not a
    ///   credential code (2000...2009), or any payload error.
    public init(storeItem item: StoreItem) throws(SchemaError) {
        guard let kind = item.type.flatMap(CredentialType.init(typeCode:)) else {
            throw .wrongItemType(expected: Self.storedKind, item: ItemReference(item))
        }
        do {
            try self.init(jsonData: item.data, typeHint: kind)
        } catch {
            throw error.attaching(ItemReference(item))
        }
    }

    /// The payload object: ``additionalFields`` overlaid with every known field; `nil` fields absent.
    public var jsonObject: JSONObject {
        var object = additionalFields
        let typeName = credentialType == .other ? (unrecognizedTypeName ?? credentialType.jsonString) : credentialType.jsonString
        object.set(Field.credentialType, typeName)
        object.set(Field.clientId, clientId)
        object.set(Field.secret, secret)
        object.set(Field.homeAccountId, homeAccountId)
        object.set(Field.environment, environment)
        object.set(Field.realm, realm)
        object.set(Field.target, target)
        object.set(Field.familyId, familyId)
        object.setTimestamp(Field.cachedAt, cachedAt)
        object.setTimestamp(Field.expiresOn, expiresOn)
        object.setTimestamp(Field.extendedExpiresOn, extendedExpiresOn)
        if object[Field.extendedExpiresOnLegacy] != nil {
            object.setTimestamp(Field.extendedExpiresOnLegacy, extendedExpiresOn)
        }
        object.setTimestamp(Field.refreshOn, refreshOn)
        object.set(Field.tokenType, storedTokenType)
        object.set(Field.keyId, keyId)
        object.set(Field.requestedClaims, requestedClaims)
        object.set(Field.enrollmentId, enrollmentId)
        object.set(Field.applicationIdentifier, applicationIdentifier)
        object.set(Field.redirectUri, redirectUri)
        object.set(Field.speInfo, speInfo)
        object.set(Field.clientInfo, clientInfo)
        object.set(Field.userAssertionHash, userAssertionHash)
        object.set(Field.extCacheKey, extCacheKey)
        return object
    }

    /// ``tokenType`` unless it is Bearer, the default no writer stores.
    var storedTokenType: String? {
        guard let tokenType, ItemKey.normalized(tokenType) != "bearer" else { return nil }
        return tokenType
    }
}
