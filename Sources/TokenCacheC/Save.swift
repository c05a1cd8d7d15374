#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCache
import TokenCacheJSON

@_cdecl("tokencache_save")
public func tokencache_save(
    _ cache: OpaquePointer?, _ requestJSON: UnsafePointer<CChar>?, _ responseJSON: UnsafePointer<CChar>?,
    _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    result?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        var members = try Arguments.object(requestJSON, "request")
        let authority = try Authority(try members.required("authority"))
        let request = TokenRequest(
            authority: authority,
            clientId: try members.required("client_id"),
            scopes: try members.scopes("scopes") ?? [],
            requestedClaims: try members.string("claims"),
            keyId: try members.string("key_id"),
            applicationIdentifier: try members.string("application_identifier"),
            resource: try members.string("resource"))
        try members.finish()
        let response = try TokenResponse(json: Data(try Arguments.string(responseJSON, "response").utf8))
        let saved = try handle.cache.save(response, for: request)
        var object: JSONObject = [
            "home_account_id": .string(saved.homeAccountId),
            "environment": .string(saved.environment),
            "saved": .number(JSONNumber(Int64(saved.saved.count))),
            "replaced_access_tokens": .number(JSONNumber(Int64(saved.replacedAccessTokens.count))),
        ]
        object["realm"] = saved.realm.map(JSONValue.string) ?? .null
        deliver(JSONValue.object(object).serializedString(), to: result)
    }
}
