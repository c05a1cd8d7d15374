import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stored item, recognized by its attributes and decoded when it is a unified-schema item.
///
/// Recognition follows the `type` attribute: 2000...2009 credential, 1000...1004 account (MSAL.NET
/// stores every account as 1003, so the code need not match `authority_type`), 3001 app metadata,
/// 5001 account metadata, 9001 an account's sign-in state (tokencache's own). Items without a type are the other residents of a shared access group
/// (legacy ADAL tokens, the wipe record, the single-FRT switch, …) and are reported as ``other(_:)``
/// without reading their payload.
public enum UnifiedItem: Sendable, Hashable {
    /// Type 2000...2009.
    case credential(Credential)
    /// Type 1000...1004.
    case account(Account)
    /// Type 3001.
    case appMetadata(AppMetadata)
    /// Type 5001.
    case accountMetadata(AccountMetadata)
    /// Type 9001, tokencache's own: one account's entry of the account metadata.
    case accountSignIn(AccountSignIn)
    /// Not a unified item; its payload is not read.
    case other(OtherItemKind)

    /// What an item that is not a unified item is.
    public enum OtherItemKind: Sendable, Hashable {
        /// A legacy ADAL token: generic `MSOpenTech.ADAL.1`, no type, NSKeyedArchiver payload.
        case legacyADAL
        /// The wipe record: account `TokenWipe`, generic `Microsoft.ADAL.WipeAll.1`.
        case wipeInfo
        /// The single-FRT switch: account and service `useSingleFRT`.
        case singleFRTSwitch
        /// Anything else (throttling or Intune records, shared-accounts blobs, unknown type codes).
        case unknown
    }

    /// The generic attribute of every legacy ADAL item.
    public static let legacyADALGeneric = "MSOpenTech.ADAL.1"
    /// The account attribute of the wipe record.
    public static let wipeInfoAccount = "TokenWipe"
    /// The generic attribute of the wipe record.
    public static let wipeInfoGeneric = "Microsoft.ADAL.WipeAll.1"
    /// The account and service attributes of the single-FRT switch.
    public static let singleFRTSwitchKey = "useSingleFRT"

    /// Recognizes `item` and decodes its payload when it is a unified item.
    ///
    /// - Throws: ``SchemaError`` naming the item (type, account, service) and the field when a
    ///   unified item's payload is not a JSON object or breaks the schema. The secret is never part
    ///   of the error.
    public init(_ item: StoreItem) throws(SchemaError) {
        guard let type = item.type else {
            self = .other(Self.untypedKind(item))
            return
        }
        if CredentialType(typeCode: type) != nil {
            self = .credential(try Credential(storeItem: item))
        } else if AccountType(typeCode: type) != nil {
            // The usual payload in one pass; anything else, and every error, from the full read.
            if let account = IndexingScanner.account(item.data) {
                self = .account(account)
            } else {
                self = .account(try Account(storeItem: item))
            }
        } else if type == ItemTypeCode.appMetadata {
            self = .appMetadata(try AppMetadata(storeItem: item))
        } else if type == ItemTypeCode.accountMetadata {
            self = .accountMetadata(try AccountMetadata(storeItem: item))
        } else if type == ItemTypeCode.accountSignIn {
            self = .accountSignIn(try AccountSignIn(storeItem: item))
        } else {
            self = .other(.unknown)
        }
    }

    private static func untypedKind(_ item: StoreItem) -> OtherItemKind {
        if item.generic == Data(legacyADALGeneric.utf8) { return .legacyADAL }
        if item.account == wipeInfoAccount, item.generic == Data(wipeInfoGeneric.utf8) { return .wipeInfo }
        if item.account == singleFRTSwitchKey, item.service == singleFRTSwitchKey { return .singleFRTSwitch }
        return .unknown
    }

    /// The keychain attributes the decoded item would be saved under; `nil` for ``other(_:)``.
    ///
    /// They can differ from the attributes it was read from (an item written by another library
    /// under another key); callers that delete or replace the original should use its own identity.
    public var key: ItemKey? {
        switch self {
        case .credential(let credential): credential.key
        case .account(let account): account.key
        case .appMetadata(let metadata): metadata.key
        case .accountMetadata(let metadata): metadata.key
        case .accountSignIn(let signIn): signIn.key
        case .other: nil
        }
    }

    /// The item to save in `accessGroup`; `nil` for ``other(_:)``.
    public func storeItem(accessGroup: String) throws(SchemaError) -> StoreItem? {
        switch self {
        case .credential(let credential): try credential.storeItem(accessGroup: accessGroup)
        case .account(let account): try account.storeItem(accessGroup: accessGroup)
        case .appMetadata(let metadata): try metadata.storeItem(accessGroup: accessGroup)
        case .accountMetadata(let metadata): try metadata.storeItem(accessGroup: accessGroup)
        case .accountSignIn(let signIn): try signIn.storeItem(accessGroup: accessGroup)
        case .other: nil
        }
    }
}
