import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON

/// An account item: one per tenant profile, i.e. per (home account, environment, realm).
///
/// Known fields are typed; unknown members (MSAL.NET's `wam_account_ids`, `account_source`, …) are
/// kept in ``additionalFields`` and written back. A known field set to `nil` is removed.
public struct Account: SchemaItem {
    /// The payload key of each known field.
    public enum Field {
        /// The `authority_type` member.
        public static let authorityType = "authority_type"
        /// The `home_account_id` member.
        public static let homeAccountId = "home_account_id"
        /// The `environment` member.
        public static let environment = "environment"
        /// The `realm` member.
        public static let realm = "realm"
        /// The `local_account_id` member.
        public static let localAccountId = "local_account_id"
        /// The `username` member.
        public static let username = "username"
        /// The `given_name` member.
        public static let givenName = "given_name"
        /// The `middle_name` member.
        public static let middleName = "middle_name"
        /// The `family_name` member.
        public static let familyName = "family_name"
        /// The `name` member.
        public static let name = "name"
        /// The `client_info` member.
        public static let clientInfo = "client_info"
        /// The `alternative_account_id` member.
        public static let alternativeAccountId = "alternative_account_id"
    }

    /// `authority_type`. Required; ``AccountType/other`` cannot be read or written.
    public var authorityType: AccountType
    /// `home_account_id`: `uid.utid`.
    public var homeAccountId: String?
    /// `environment`: the authority host.
    public var environment: String?
    /// `realm`: the tenant id of this profile.
    public var realm: String?
    /// `local_account_id`: the `oid` (or `sub`) claim.
    public var localAccountId: String?
    /// `username`: the preferred username as received (B2C without one: `Missing from the token response`).
    public var username: String?
    /// `given_name`.
    public var givenName: String?
    /// `middle_name`.
    public var middleName: String?
    /// `family_name`.
    public var familyName: String?
    /// `name`: the display name.
    public var name: String?
    /// `client_info`: the raw base64url client info.
    public var clientInfo: String?
    /// `alternative_account_id`: the `altsecid` claim.
    public var alternativeAccountId: String?
    /// Every payload member this model does not know, written back unchanged.
    public var additionalFields: JSONObject

    /// Creates an account; MSAL writes ``AccountType/mssts``.
    public init(
        authorityType: AccountType = .mssts,
        homeAccountId: String? = nil,
        environment: String? = nil,
        realm: String? = nil,
        localAccountId: String? = nil,
        username: String? = nil,
        givenName: String? = nil,
        middleName: String? = nil,
        familyName: String? = nil,
        name: String? = nil,
        clientInfo: String? = nil,
        alternativeAccountId: String? = nil,
        additionalFields: JSONObject = JSONObject()
    ) {
        self.authorityType = authorityType
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.realm = realm
        self.localAccountId = localAccountId
        self.username = username
        self.givenName = givenName
        self.middleName = middleName
        self.familyName = familyName
        self.name = name
        self.clientInfo = clientInfo
        self.alternativeAccountId = alternativeAccountId
        self.additionalFields = additionalFields
    }

    // MARK: - JSON

    /// Reads a payload object.
    ///
    /// - Throws: ``SchemaError/missingField(_:item:)`` without `authority_type`;
    ///   ``SchemaError/invalidField(_:reason:item:)`` when it is `Other` or unknown, or when a known
    ///   field has the wrong kind.
    public init(jsonObject: JSONObject) throws(SchemaError) {
        var fields = PayloadFields(jsonObject)
        guard let typeName = try fields.string(Field.authorityType) else {
            throw .missingField(Field.authorityType, item: nil)
        }
        guard let type = AccountType(jsonString: typeName) else {
            throw .invalidField(Field.authorityType, reason: "is not one of MSSTS, AAD, MSA, ADFS", item: nil)
        }
        guard type != .other else {
            throw .invalidField(Field.authorityType, reason: "is 'Other', which the Apple libraries reject", item: nil)
        }
        self.init(authorityType: type)
        homeAccountId = try fields.string(Field.homeAccountId)
        environment = try fields.string(Field.environment)
        realm = try fields.string(Field.realm)
        localAccountId = try fields.string(Field.localAccountId)
        username = try fields.string(Field.username)
        givenName = try fields.string(Field.givenName)
        middleName = try fields.string(Field.middleName)
        familyName = try fields.string(Field.familyName)
        name = try fields.string(Field.name)
        clientInfo = try fields.string(Field.clientInfo)
        alternativeAccountId = try fields.string(Field.alternativeAccountId)
        additionalFields = fields.remaining
    }

    /// Any type 1000...1004 (MSAL.NET stores every account as 1003, whatever its authority type).
    public static func isStored(asType type: UInt32?) -> Bool { type.flatMap(AccountType.init(typeCode:)) != nil }
    public static let storedKind = "an account (type 1000...1004)"

    /// The payload object: ``additionalFields`` overlaid with every known field; `nil` fields absent.
    public var jsonObject: JSONObject {
        var object = additionalFields
        object.set(Field.authorityType, authorityType.jsonString)
        object.set(Field.homeAccountId, homeAccountId)
        object.set(Field.environment, environment)
        object.set(Field.realm, realm)
        object.set(Field.localAccountId, localAccountId)
        object.set(Field.username, username)
        object.set(Field.givenName, givenName)
        object.set(Field.middleName, middleName)
        object.set(Field.familyName, familyName)
        object.set(Field.name, name)
        object.set(Field.clientInfo, clientInfo)
        object.set(Field.alternativeAccountId, alternativeAccountId)
        return object
    }

    // MARK: - Key

    /// The keychain attributes: account `norm(home_account_id)-norm(environment)`, service
    /// `norm(realm)` (`""` without realm), generic the UTF-8 of `norm(username)` (absent without
    /// username), type `1000 + authority type` (1003 for MSSTS).
    public var key: ItemKey {
        ItemKey(
            account: ItemKey.account(homeAccountId: homeAccountId, environment: environment),
            service: ItemKey.normalized(realm ?? ""),
            generic: username.map { Data(ItemKey.normalized($0).utf8) },
            type: authorityType.typeCode
        )
    }

    /// Throws ``SchemaError/invalidField(_:reason:item:)`` when ``authorityType`` is
    /// ``AccountType/other``: no reader would accept the item.
    public func checkStorable() throws(SchemaError) {
        guard authorityType != .other else {
            throw .invalidField(Field.authorityType, reason: "is 'Other', which no reader accepts; use MSSTS", item: key.reference)
        }
    }
}
