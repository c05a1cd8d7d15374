import CacheStore
import CacheStoreMemory
import Foundation
import RedisWire
import TokenCache
import TokenCacheInterchange

/// The baseline layout: each user's whole MSAL JSON cache as one Redis string, as
/// Microsoft.Identity.Web's distributed token cache keeps it (without its in-memory L1 cache). Every
/// request `GET`s the blob and parses it into an in-memory cache; a save then serializes that cache
/// and `SET`s it back whole.
struct BlobCache {
    let target: LoadStore
    let nodes: RedisNodes

    /// The user's cache, fetched and parsed (empty when the user has no blob yet).
    func fetch(_ user: Int) throws -> TokenCache {
        let store = MemoryStore(accessGroups: try AccessGroups([LoadUsers.group]))
        let key = target.blobKey(user)
        if case .bulk(let blob?) = try nodes.client(for: key).command([Data("GET".utf8), key]) {
            _ = try CacheInterchange(store: store).importData(blob, source: "the user's blob", format: .msalJSON)
        }
        return try TokenCache(store: store)
    }

    /// A silent request: fetch, parse, look the token up.
    func lookup(_ user: Int) throws -> Bool {
        try fetch(user).accessToken(LoadUsers.query(user)) != nil
    }

    /// A save: fetch, parse, save the response into it, serialize, write it back whole.
    func save(_ user: Int, serial: Int) throws {
        let cache = try fetch(user)
        try cache.save(LoadUsers.response(user, serial: serial), for: LoadUsers.request)
        let blob = try CacheInterchange(store: cache.store).export(.msalJSON).data
        let key = target.blobKey(user)
        _ = try nodes.client(for: key).command([Data("SET".utf8), key, blob])
    }
}
