#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keychain-style query: each attribute it names must match exactly; the others match anything.
///
/// "Exactly" means byte for byte in UTF-8, as SQLite and the keychain compare: `é` written as one
/// scalar and `é` written as `e` plus a combining accent are different values.
///
/// An empty query matches every item in the store's access groups. `type` can also be asked to be
/// absent (``TypeMatch/absent``), so that an identity with no type can be addressed exactly; the other
/// attributes match only by value.
public struct ItemQuery: Sendable, Hashable {
    /// Restricts to one access group; `nil` means every group the store was opened for.
    public var accessGroup: String?
    public var account: String?
    public var service: String?
    /// Compared as bytes.
    public var generic: Data?
    public var type: TypeMatch?

    /// How a query constrains the `type` attribute.
    /// An integer literal stands for ``code(_:)``: `ItemQuery(type: 2001)`.
    public enum TypeMatch: Sendable, Hashable, ExpressibleByIntegerLiteral {
        /// The item's type equals this code.
        case code(UInt32)
        /// The item has no type (legacy ADAL items, wipe info).
        case absent

        public init(integerLiteral value: UInt32) { self = .code(value) }

        /// `.code(type)` for a type, `.absent` for `nil`: how an identity's type is matched.
        public init(_ type: UInt32?) { self = type.map(TypeMatch.code) ?? .absent }
    }

    public init(
        accessGroup: String? = nil,
        account: String? = nil,
        service: String? = nil,
        generic: Data? = nil,
        type: TypeMatch? = nil
    ) {
        self.accessGroup = accessGroup
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
    }

    /// Convenience for the common case of a query by generic bytes written as a UTF-8 string.
    public init(accessGroup: String? = nil, account: String? = nil, service: String? = nil, genericString: String, type: UInt32? = nil) {
        self.init(
            accessGroup: accessGroup,
            account: account,
            service: service,
            generic: Data(genericString.utf8),
            type: type.map(TypeMatch.code)
        )
    }

    /// The identity this query names completely (group, account, service and type), if it does.
    public var identity: ItemIdentity? {
        guard let accessGroup, let account, let service, let type else { return nil }
        switch type {
        case .code(let code): return ItemIdentity(accessGroup: accessGroup, account: account, service: service, type: code)
        case .absent: return ItemIdentity(accessGroup: accessGroup, account: account, service: service, type: nil)
        }
    }

    /// Whether `item` satisfies every attribute this query names.
    ///
    /// Backends that filter in memory use this; SQL backends express the same rule in their statements.
    public func matches(_ item: StoreItem) -> Bool {
        if let accessGroup, !sameBytes(accessGroup, item.accessGroup) { return false }
        if let account, !sameBytes(account, item.account) { return false }
        if let service, !sameBytes(service, item.service) { return false }
        if let generic, generic != item.generic { return false }
        switch type {
        case nil: break
        case .code(let code): if item.type != code { return false }
        case .absent: if item.type != nil { return false }
        }
        return true
    }
}
