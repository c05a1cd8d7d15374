#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One keychain-equivalent item: a generic-password record in an access group.
///
/// The store compares every attribute exactly: strings by their Unicode scalars, ``generic`` as bytes.
/// An item's identity is ``identity`` — `(accessGroup, account, service, type)`; saving an item whose
/// identity already exists replaces that item's ``generic`` and ``data``, as the Apple keychain's
/// update-then-add does.
public struct StoreItem: Sendable, Hashable {
    /// The access group (keychain sharing group) the item lives in, e.g. `com.microsoft.adalcache`.
    public var accessGroup: String
    /// The `kSecAttrAccount` attribute. Empty when the writer had none.
    public var account: String
    /// The `kSecAttrService` attribute.
    public var service: String
    /// The `kSecAttrGeneric` attribute: bytes, compared as bytes. `nil` (absent) differs from empty.
    public var generic: Data?
    /// The `kSecAttrType` attribute. `nil` (absent) differs from every number.
    public var type: UInt32?
    /// The payload (`kSecValueData`): JSON for unified items, a keyed archive for legacy ADAL items.
    public var data: Data
    /// When the store first saved this identity; `nil` on an item that has not been saved.
    public var created: Date?
    /// When the store last saved this identity; `nil` on an item that has not been saved.
    public var modified: Date?

    /// Creates an item. The store sets ``created`` and ``modified`` when it saves the item.
    public init(
        accessGroup: String,
        account: String,
        service: String,
        generic: Data? = nil,
        type: UInt32? = nil,
        data: Data,
        created: Date? = nil,
        modified: Date? = nil
    ) {
        self.accessGroup = accessGroup
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
        self.data = data
        self.created = created
        self.modified = modified
    }

    /// The attributes that identify the item in its store.
    public var identity: ItemIdentity {
        ItemIdentity(accessGroup: accessGroup, account: account, service: service, type: type)
    }
}

/// The attributes that identify an item: `(accessGroup, account, service, type)`.
///
/// `generic` is deliberately not part of it: the keychain's update query omits it, so a save with a
/// different `generic` replaces the item rather than adding a second one.
/// Equality and hashing compare the UTF-8 bytes, not Swift's canonical string equivalence, so that
/// every backend agrees on which items are the same.
public struct ItemIdentity: Sendable, Hashable {
    public var accessGroup: String
    public var account: String
    public var service: String
    public var type: UInt32?

    public init(accessGroup: String, account: String, service: String, type: UInt32?) {
        self.accessGroup = accessGroup
        self.account = account
        self.service = service
        self.type = type
    }

    public static func == (lhs: ItemIdentity, rhs: ItemIdentity) -> Bool {
        lhs.type == rhs.type
            && sameBytes(lhs.accessGroup, rhs.accessGroup)
            && sameBytes(lhs.account, rhs.account)
            && sameBytes(lhs.service, rhs.service)
    }

    public func hash(into hasher: inout Hasher) {
        // Lengths keep ("ab", "c") and ("a", "bc") apart.
        func combine(_ part: String) {
            var part = part
            part.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            hasher.combine(part.utf8.count)
        }
        combine(accessGroup)
        combine(account)
        combine(service)
        hasher.combine(type)
    }

    /// A query that matches exactly the item with this identity.
    public var query: ItemQuery {
        ItemQuery(accessGroup: accessGroup, account: account, service: service, type: .init(type))
    }
}
