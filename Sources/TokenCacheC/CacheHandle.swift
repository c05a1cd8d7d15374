import CacheStore
import TokenCache
import TokenCacheInterchange

/// What a `tokencache_t` points at: the store and the engine, blob and entry layers over it. Every
/// part is safe to use from any thread.
final class CacheHandle: Sendable {
    let cache: TokenCache
    let blobs: MSALBlobStore
    let interchange: CacheInterchange

    init(cache: TokenCache) throws {
        self.cache = cache
        blobs = try MSALBlobStore(store: cache.store, accessGroup: cache.writeAccessGroup)
        interchange = try CacheInterchange(store: cache.store, accessGroup: cache.writeAccessGroup)
    }

    /// The handle `pointer` stands for, kept alive by the caller's reference until its call
    /// returns (see ``HandleTable``); NULL, closed and unknown handles are bad input.
    static func from(_ pointer: OpaquePointer?) throws -> CacheHandle {
        guard let pointer else { throw BadInput("the cache handle is NULL") }
        return try HandleTable.handle(pointer)
    }
}
