import CacheStore
import Foundation

/// What the four unified-schema items (``Credential``, ``Account``, ``AppMetadata``,
/// ``AccountMetadata``) share: a keychain key, a JSON payload, and the store item the two make.
///
/// A conforming type gives ``key`` and ``jsonObject`` (and ``checkStorable()`` when some values
/// must never be stored); ``jsonData`` and ``storeItem(accessGroup:)`` follow.
public protocol SchemaItem: Sendable, Hashable {
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

    /// Decodes a stored item's payload with `decode` when `isOfThisType`, else throws
    /// ``SchemaError/wrongItemType(expected:item:)`` with `expected`; every error names the item.
    static func decoding(
        _ item: StoreItem, isOfThisType: Bool, expected: String, _ decode: (Data) throws(SchemaError) -> Self
    ) throws(SchemaError) -> Self {
        guard isOfThisType else { throw .wrongItemType(expected: expected, item: ItemReference(item)) }
        do {
            return try decode(item.data)
        } catch {
            throw error.attaching(ItemReference(item))
        }
    }
}
