import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The keychain attributes of a unified item: everything but the access group and the payload.
///
/// The access group is not part of the schema: the caller chooses it when it turns a key into a
/// ``StoreItem`` or an ``ItemQuery``.
public struct ItemKey: Sendable, Hashable, CustomStringConvertible {
    /// `kSecAttrAccount`.
    public var account: String
    /// `kSecAttrService`.
    public var service: String
    /// `kSecAttrGeneric`; `nil` (absent) differs from empty.
    public var generic: Data?
    /// `kSecAttrType`.
    public var type: UInt32

    /// Creates a key from its four attributes.
    public init(account: String, service: String, generic: Data?, type: UInt32) {
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
    }

    /// The account attribute of an account or credential: `norm(home_account_id)-norm(environment)`,
    /// an absent part written as empty.
    public static func account(homeAccountId: String?, environment: String?) -> String {
        let home = normalized(homeAccountId ?? "")
        let host = normalized(environment ?? "")
        var account = home
        account.reserveCapacity(home.utf8.count + host.utf8.count + 1)
        account += "-"
        account += host
        return account
    }

    /// ``generic`` as text (the unified schema always writes UTF-8 there).
    public var genericString: String? {
        generic.map { String(decoding: $0, as: UTF8.self) }
    }

    /// An item with these attributes in `accessGroup`, holding `data`.
    public func storeItem(accessGroup: String, data: Data) -> StoreItem {
        StoreItem(accessGroup: accessGroup, account: account, service: service, generic: generic, type: type, data: data)
    }

    /// The identity of the item with this key in `accessGroup`.
    public func identity(accessGroup: String) -> ItemIdentity {
        ItemIdentity(accessGroup: accessGroup, account: account, service: service, type: type)
    }

    /// A query for exactly this item (account, service and type, as the keychain's update query);
    /// `accessGroup` `nil` means every group the store was opened for.
    public func query(accessGroup: String? = nil) -> ItemQuery {
        ItemQuery(accessGroup: accessGroup, account: account, service: service, type: .code(type))
    }

    /// The reference used in error messages.
    public var reference: ItemReference {
        ItemReference(type: type, account: account, service: service)
    }

    public var description: String {
        "account '\(account)', service '\(service)', generic \(genericString.map { "'\($0)'" } ?? "none"), type \(type)"
    }
}
