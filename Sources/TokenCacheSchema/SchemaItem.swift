import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON

/// What the four unified-schema items (``Credential``, ``Account``, ``AppMetadata``,
/// ``AccountMetadata``) share: a keychain key, a JSON payload, and the store item the two make.
///
/// A conforming type gives its payload reader ``init(jsonObject:)``, its type codes, ``key`` and
/// ``jsonObject`` (and ``checkStorable()`` when some values must never be stored); reading JSON
/// data and stored items, ``jsonData`` and ``storeItem(accessGroup:)`` follow.
public protocol SchemaItem: Sendable, Hashable {
    /// Reads a payload object; known fields of the wrong kind are errors, unknown members are kept.
    init(jsonObject: JSONObject) throws(SchemaError)
    /// Whether a stored item with this `type` attribute is of this kind.
    static func isStored(asType type: UInt32?) -> Bool
    /// The kind in words, with its type codes, for errors: e.g. `app metadata (type 3001)`.
    static var storedKind: String { get }
    /// The keychain attributes.
    var key: ItemKey { get }
    /// The payload object: the item's unknown members overlaid with its known fields.
    var jsonObject: JSONObject { get }
    /// Throws when the item must not be stored as it is; by default it never does.
    func checkStorable() throws(SchemaError)
}

extension SchemaItem {
    public func checkStorable() throws(SchemaError) {}

    /// The payload bytes: compact UTF-8 JSON, keys sorted by their bytes.
    public var jsonData: Data { jsonObject.payloadData }

    /// The item to save in `accessGroup`: ``key`` with ``jsonData``.
    ///
    /// - Throws: what ``checkStorable()`` throws.
    public func storeItem(accessGroup: String) throws(SchemaError) -> StoreItem {
        try checkStorable()
        return key.storeItem(accessGroup: accessGroup, data: jsonData)
    }

    /// Reads a JSON payload (UTF-8, BOM and `\/` escapes accepted); see ``init(jsonObject:)``.
    public init(jsonData: Data) throws(SchemaError) {
        try self.init(jsonObject: PayloadFields.object(from: jsonData))
    }

    /// Reads a stored item of this kind; every error names the item.
    ///
    /// - Throws: ``SchemaError/wrongItemType(expected:item:)`` when the item's type is not this
    ///   kind's, or any payload error.
    public init(storeItem item: StoreItem) throws(SchemaError) {
        guard Self.isStored(asType: item.type) else { throw .wrongItemType(expected: Self.storedKind, item: ItemReference(item)) }
        do {
            try self.init(jsonData: item.data)
        } catch {
            throw error.attaching(ItemReference(item))
        }
    }
}
