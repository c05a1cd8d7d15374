import CacheStore
import Foundation
import TokenCache
import TokenCacheJSON
import TokenCacheSchema

/// Checks, before a run, that seeding writes what the engine writes: a few users seeded through
/// the batch API into one SQLite store and the same users signed in one after another through the
/// engine into another must hold the same items (payloads compared as JSON without their times,
/// which follow the clock) and the same lookup keys. A change to what a save writes that the seeder
/// does not follow fails the run here instead of measuring another layout.
func checkSeeding(scratch: String, users: Int = 40) throws {
    let seeded = LoadStore(spec: "sqlite:\(scratch)/check/seeded.sqlite", prefix: "check")
    let signedIn = LoadStore(spec: "sqlite:\(scratch)/check/engine.sqlite", prefix: "check")
    try mergeShared(try seed(seeded, users: 0..<users, blobs: false), into: seeded)
    let cache = try TokenCache(store: try signedIn.open(tracking: false))
    for user in 0..<users { try cache.save(LoadUsers.response(user), for: LoadUsers.request) }
    let mine = try contents(seeded, users: users)
    let engine = try contents(signedIn, users: users)
    guard mine.items == engine.items else {
        let differing = Set(mine.items.keys).symmetricDifference(engine.items.keys).union(
            mine.items.keys.filter { engine.items[$0] != nil && engine.items[$0] != mine.items[$0] })
        throw LoadError.seeding("the seeded store differs from what the engine writes, in \(differing.count) items, such as "
            + (differing.first.map { "\($0.account) / \($0.service) (type \($0.type.map { String($0) } ?? "none"))" } ?? "?"))
    }
    guard mine.lookupKeys == engine.lookupKeys else {
        throw LoadError.seeding("the seeded store's lookup keys differ from those the engine sets")
    }
}

/// A store's items by identity (generic and payload, times left out) and each user's lookup-key partitions.
private func contents(_ target: LoadStore, users: Int) throws -> (items: [ItemIdentity: String], lookupKeys: [[PartitionID]]) {
    let store = try target.open(tracking: false)
    var items: [ItemIdentity: String] = [:]
    for item in try store.allItems() {
        var payload = item.data.base64EncodedString()
        if case .object(var object)? = try? JSONValue.parse(item.data) {
            for time in ["cached_at", "expires_on", "extended_expires_on", "refresh_on", "last_modification_time"] { object[time] = nil }
            payload = String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
        }
        items[item.identity] = (item.generic?.base64EncodedString() ?? "-") + " " + payload
    }
    var lookupKeys: [[PartitionID]] = []
    if let index = store.lookupKeyIndex {
        for user in 0..<users {
            lookupKeys.append((try index.partitions(withLookupKey: LookupKey.username(LoadUsers.username(user))) ?? []).sorted())
        }
    }
    return (items, lookupKeys)
}
