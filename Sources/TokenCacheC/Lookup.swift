import TokenCache
import TokenCacheJSON
import TokenCacheSchema

/// One credential's MSAL JSON entry, with `extra` members added.
private func entryText(_ credential: Credential, extra: JSONObject = [:]) -> String {
    var entry = credential.msalEntry?.entry ?? credential.jsonObject
    for (name, value) in extra { entry[name] = value }
    return JSONValue.object(entry).serializedString(sortingKeys: true)
}

/// The frame every lookup shares: clears the out-parameter, resolves the handle, reads the query
/// object, and delivers what `body` returns.
private func lookupCall(
    _ cache: OpaquePointer?, _ queryJSON: UnsafePointer<CChar>?,
    _ entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?,
    _ body: (CacheHandle, inout Members) throws -> String
) -> Int32 {
    entry?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        var members = try Arguments.object(queryJSON, "query")
        deliver(try body(handle, &members), to: entry)
    }
}

@_cdecl("tokencache_lookup_access_token")
public func tokencache_lookup_access_token(
    _ cache: OpaquePointer?, _ queryJSON: UnsafePointer<CChar>?,
    _ entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    lookupCall(cache, queryJSON, entry, error) { handle, members in
        let query = AccessTokenQuery(
            homeAccountId: try members.required("home_account_id"),
            environment: try members.required("environment"),
            realm: try members.string("realm"),
            clientId: try members.required("client_id"),
            scopes: try members.scopes("scopes") ?? [],
            tokenType: try members.string("token_type"),
            keyId: try members.string("key_id"),
            requestedClaims: try members.string("claims"),
            applicationIdentifier: try members.string("application_identifier"),
            extCacheKey: try members.string("ext_cache_key"))
        try members.finish()
        guard let found = try handle.cache.accessToken(query) else { throw NotFound("no access token matches the query") }
        return entryText(found.credential, extra: ["needs_refresh": .string(found.needsRefresh ? "true" : "false")])
    }
}

@_cdecl("tokencache_lookup_refresh_token")
public func tokencache_lookup_refresh_token(
    _ cache: OpaquePointer?, _ queryJSON: UnsafePointer<CChar>?,
    _ entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    lookupCall(cache, queryJSON, entry, error) { handle, members in
        let home = try members.string("home_account_id")
        let username = try members.string("username")
        let subject: RefreshTokenQuery.Subject
        switch (home, username) {
        case (let home?, nil): subject = .homeAccountId(home)
        case (nil, let username?): subject = .username(username)
        default: throw BadInput("query: exactly one of \"home_account_id\" and \"username\" is required")
        }
        let query = RefreshTokenQuery(
            subject: subject, clientId: try members.required("client_id"),
            familyId: try members.string("family_id"), environment: try members.string("environment"))
        try members.finish()
        guard let found = try handle.cache.refreshToken(query) else { throw NotFound("no refresh token matches the query") }
        return entryText(found.credential)
    }
}

@_cdecl("tokencache_lookup_id_token")
public func tokencache_lookup_id_token(
    _ cache: OpaquePointer?, _ queryJSON: UnsafePointer<CChar>?,
    _ entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    lookupCall(cache, queryJSON, entry, error) { handle, members in
        let home = try members.required("home_account_id")
        let client = try members.required("client_id")
        let environment = try members.required("environment")
        let realm = try members.string("realm")
        try members.finish()
        guard let found = try handle.cache.idToken(homeAccountId: home, clientId: client, environment: environment, realm: realm) else {
            throw NotFound("no ID token matches the query")
        }
        return entryText(found.credential)
    }
}

@_cdecl("tokencache_lookup_app_metadata")
public func tokencache_lookup_app_metadata(
    _ cache: OpaquePointer?, _ queryJSON: UnsafePointer<CChar>?,
    _ entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    lookupCall(cache, queryJSON, entry, error) { handle, members in
        let client = try members.required("client_id")
        let environment = try members.string("environment")
        try members.finish()
        guard let found = try handle.cache.appMetadata(clientId: client, environment: environment) else {
            throw NotFound("no app metadata for this client")
        }
        return JSONValue.object(found.msalEntry).serializedString(sortingKeys: true)
    }
}
