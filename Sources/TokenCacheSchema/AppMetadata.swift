import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON

/// An app-metadata item: whether a client is in a token family (FOCI).
///
/// Unknown members are kept in ``additionalFields`` and written back.
public struct AppMetadata: SchemaItem {
    /// The payload key of each known field.
    public enum Field {
        /// The `client_id` member.
        public static let clientId = "client_id"
        /// The `environment` member.
        public static let environment = "environment"
        /// The `family_id` member.
        public static let familyId = "family_id"
    }

    /// `client_id`, case preserved.
    public var clientId: String?
    /// `environment`, used as the account attribute exactly as written (not normalized).
    public var environment: String?
    /// `family_id`: `"1"` for a family member, `""` for an app known not to be one (what MSAL
    /// writes for non-FOCI apps), `nil` when never set.
    public var familyId: String?
    /// Every payload member this model does not know, written back unchanged.
    public var additionalFields: JSONObject

    /// Creates app metadata; `familyId` defaults to `""` (not in a family), as MSAL writes it.
    public init(clientId: String?, environment: String?, familyId: String? = "", additionalFields: JSONObject = JSONObject()) {
        self.clientId = clientId
        self.environment = environment
        self.familyId = familyId
        self.additionalFields = additionalFields
    }

    /// Reads a payload object. - Throws: ``SchemaError/invalidField(_:reason:item:)`` for a known
    /// field of the wrong kind.
    public init(jsonObject: JSONObject) throws(SchemaError) {
        var fields = PayloadFields(jsonObject)
        let clientId = try fields.string(Field.clientId)
        let environment = try fields.string(Field.environment)
        let familyId = try fields.string(Field.familyId)
        self.init(clientId: clientId, environment: environment, familyId: familyId, additionalFields: fields.remaining)
    }

    public static func isStored(asType type: UInt32?) -> Bool { type == ItemTypeCode.appMetadata }
    public static let storedKind = "app metadata (type 3001)"

    /// The payload object: ``additionalFields`` overlaid with the known fields; `nil` fields absent.
    public var jsonObject: JSONObject {
        var object = additionalFields
        object.set(Field.clientId, clientId)
        object.set(Field.environment, environment)
        object.set(Field.familyId, familyId)
        return object
    }

    /// The keychain attributes: account = ``environment`` as is, service
    /// `appmetadata-norm(client_id)`, generic the UTF-8 of ``familyId`` (empty data for `""`,
    /// absent for `nil`), type 3001.
    public var key: ItemKey {
        ItemKey(
            account: environment ?? "",
            service: "appmetadata-" + ItemKey.normalized(clientId ?? ""),
            generic: familyId.map { Data($0.utf8) },
            type: ItemTypeCode.appMetadata
        )
    }
}
