#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One attribute of a keyring item.
public struct SDKAttribute: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name)=\(value)" }
}

/// One keyring item layout an SDK writes with libsecret.
public struct SDKKeyringLayout: Sendable, Hashable {
    /// What writes it, e.g. "Azure.Identity .NET and MSAL.NET extension cache".
    public var writer: String
    /// The schema name the writer passes to libsecret, which stores it as the attribute `xdg:schema`.
    public var schema: String
    /// Whether the writer's own lookups match `xdg:schema` (`SECRET_SCHEMA_NONE`); `false` for
    /// `SECRET_SCHEMA_DONT_MATCH_NAME`, which matches only the other attributes.
    public var matchesSchema: Bool
    /// The attributes the writer sets (besides `xdg:schema`).
    public var attributes: [SDKAttribute]
    /// The label the writer gives the item (for display; never searched).
    public var label: String
    public var encoding: SDKCacheEncoding
    /// Where the layout is described: a section of `docs/formats/linux-persistence.md`.
    public var reference: String

    /// The attributes to search for: those the writer's own lookup matches.
    public var searchAttributes: [SDKAttribute] {
        matchesSchema ? [SDKAttribute("xdg:schema", schema)] + attributes : attributes
    }
}

/// A keyring item as ``SDKKeyring`` reports it: metadata only.
public struct SDKKeyringItem: Sendable, Hashable {
    /// Identifies the item to ``SDKKeyring/secrets(of:)`` (a D-Bus object path for the Secret Service).
    public var id: String
    public var label: String
    /// The collection holding it, as a person names it (e.g. `Login`).
    public var collection: String
    public var isLocked: Bool

    public init(id: String, label: String, collection: String, isLocked: Bool) {
        self.id = id
        self.label = label
        self.collection = collection
        self.isLocked = isLocked
    }
}

/// Read-only access to a keyring, provided by a backend (the CLI adapts `SecretServiceLookup`).
/// Neither call may create, change or unlock anything.
public protocol SDKKeyring {
    /// The items, in any collection, carrying all of `attributes` (and maybe more); locked ones too.
    func items(matching attributes: [SDKAttribute]) throws -> [SDKKeyringItem]
    /// The secrets of `items` (all unlocked), by ``SDKKeyringItem/id``.
    func secrets(of items: [SDKKeyringItem]) throws -> [String: Data]
}
