/// Sizes past which a store refuses an item, so that hostile input fails clearly instead of
/// exhausting memory.
public enum StoreLimits {
    /// The default largest payload: 16 MiB. Real token-cache items are a few kilobytes.
    public static let maximumDataSize = 16 * 1024 * 1024

    /// Throws ``CacheStoreError/invalidItem(reason:)`` when the item's payload is over the limit.
    public static func check(_ item: StoreItem, maximumDataSize: Int) throws(CacheStoreError) {
        guard item.data.count <= maximumDataSize else {
            throw .invalidItem(reason: "item (account '\(item.account)', service '\(item.service)') has a "
                + "\(item.data.count)-byte payload; the store's limit is \(maximumDataSize) bytes")
        }
    }
}
