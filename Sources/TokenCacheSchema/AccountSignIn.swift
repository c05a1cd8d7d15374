import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON

/// One account's sign-in state and authority map for one client: an entry of the client's
/// ``AccountMetadata`` map kept in the account's own partition, so that signing a user in or out
/// writes only that user's partition. tokencache's own item (type 9001), not MSAL's: exports and
/// `dump` show the entries folded into MSAL ObjC's ``AccountMetadata`` item
/// (see ``AccountMetadata/merging(legacy:signIns:)``).
///
/// Item: account `norm(home_account_id)-norm(environment)` (the partition of the account's records
/// and credentials), service = the client id as given (as MSAL ObjC's `authority_map` item), no
/// generic, type 9001. Payload: the entry's members (`client_id`, `home_account_id`,
/// `sign_in_state`, `athority_map`) and `environment`; as for ``AccountMetadata``, whose entries
/// these are, unknown members are not preserved.
public struct AccountSignIn: SchemaItem {
    /// The `environment` member, the only one an ``AccountMetadata/Entry`` does not have.
    public static let environmentField = "environment"

    /// The entry; its `clientId` is the service attribute.
    public var entry: AccountMetadata.Entry
    /// The environment whose partition holds the item.
    public var environment: String

    /// Creates the item of `entry` (whose client id must be set) in `environment`'s partition.
    public init(entry: AccountMetadata.Entry, environment: String) {
        self.entry = entry
        self.environment = environment
    }

    /// The client id (the service attribute).
    public var clientId: String { entry.clientId ?? "" }

    /// The normalized home account id, as lookups ask for it.
    public var homeAccountKey: String { ItemKey.normalized(entry.homeAccountId) }

    /// Reads a payload object.
    ///
    /// - Throws: ``SchemaError/missingField(_:item:)`` without `client_id`, `home_account_id` or
    ///   `environment`; ``SchemaError/invalidField(_:reason:item:)`` when the map is misshapen.
    public init(jsonObject: JSONObject) throws(SchemaError) {
        var fields = PayloadFields(jsonObject)
        guard let environment = try fields.string(Self.environmentField) else { throw .missingField(Self.environmentField, item: nil) }
        let entry = try AccountMetadata.entry(jsonObject, homeAccountId: "", prefix: "")
        guard entry.clientId != nil else { throw .missingField(AccountMetadata.Field.clientId, item: nil) }
        guard !entry.homeAccountId.isEmpty else { throw .missingField(AccountMetadata.Field.homeAccountId, item: nil) }
        self.init(entry: entry, environment: environment)
    }

    public static func isStored(asType type: UInt32?) -> Bool { type == ItemTypeCode.accountSignIn }
    public static let storedKind = "account sign-in state (tokencache type 9001)"

    /// The entry's members and `environment`.
    public var jsonObject: JSONObject {
        var object = entry.jsonObject
        object.set(Self.environmentField, environment)
        return object
    }

    /// Account `norm(home_account_id)-norm(environment)`, service = the client id as given, no
    /// generic, type 9001.
    public var key: ItemKey {
        ItemKey(
            account: ItemKey.account(homeAccountId: entry.homeAccountId, environment: environment),
            service: clientId, generic: nil, type: ItemTypeCode.accountSignIn)
    }

    /// Whether this item's state wins over `other`'s for the same client and home account (two
    /// environments' partitions can each hold one): signed in over signed out over unknown.
    public func outranks(_ other: AccountSignIn) -> Bool {
        Self.rank(entry.signInState) > Self.rank(other.entry.signInState)
    }

    private static func rank(_ state: AccountMetadata.SignInState) -> Int {
        switch state {
        case .signedIn: 2
        case .signedOut: 1
        case .unknown: 0
        }
    }
}
