import TokenCache
import TokenCacheJSON
import TokenCacheSchema

@_cdecl("tokencache_search")
public func tokencache_search(
    _ cache: OpaquePointer?, _ credentialType: UnsafePointer<CChar>?, _ queryJSON: UnsafePointer<CChar>?,
    _ targetJSON: UnsafePointer<CChar>?, _ now: Int64,
    _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    result?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        let typeName = try Arguments.string(credentialType, "credential_type")
        guard let kind = CacheSearch.Kind(rawValue: typeName) else {
            throw BadInput("credential_type must be AccessToken, RefreshToken, IdToken, Account or AppMetadata")
        }
        let query = try Arguments.object(queryJSON, "query", optional: true).object
        let target = try Arguments.stringArray(targetJSON, "target") ?? []
        guard now >= 0 else { throw BadInput("now must not be negative") }
        let found = try handle.cache.search(CacheSearch(kind: kind, query: query, target: target, now: now == 0 ? nil : now))
        deliver(JSONValue.array(found.map(JSONValue.object)).serializedString(sortingKeys: true), to: result)
    }
}
