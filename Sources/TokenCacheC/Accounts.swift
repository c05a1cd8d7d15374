import TokenCache
import TokenCacheJSON

private func entries(of accounts: [CachedAccount]) -> String {
    JSONValue.array(accounts.flatMap { $0.tenantProfiles.map { .object($0.account.msalEntry) } }).serializedString(sortingKeys: true)
}

@_cdecl("tokencache_accounts")
public func tokencache_accounts(
    _ cache: OpaquePointer?, _ filterJSON: UnsafePointer<CChar>?,
    _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    result?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        var members = try Arguments.object(filterJSON, "filter", optional: true)
        let client = try members.string("client_id")
        let environment = try members.string("environment")
        try members.finish()
        deliver(entries(of: try handle.cache.accounts(clientId: client, environment: environment)), to: result)
    }
}

@_cdecl("tokencache_find_account")
public func tokencache_find_account(
    _ cache: OpaquePointer?, _ queryJSON: UnsafePointer<CChar>?,
    _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    result?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        var members = try Arguments.object(queryJSON, "query")
        let home = try members.string("home_account_id")
        let username = try members.string("username")
        let client = try members.string("client_id")
        let environment = try members.string("environment")
        try members.finish()
        let found: CachedAccount?
        switch (home, username) {
        case (let home?, nil): found = try handle.cache.account(identifier: home, clientId: client, environment: environment)
        case (nil, let username?): found = try handle.cache.account(username: username, clientId: client, environment: environment)
        default: throw BadInput("query: exactly one of \"home_account_id\" and \"username\" is required")
        }
        guard let found else { throw NotFound("no account matches the query") }
        deliver(entries(of: [found]), to: result)
    }
}

@_cdecl("tokencache_remove_account")
public func tokencache_remove_account(
    _ cache: OpaquePointer?, _ homeAccountId: UnsafePointer<CChar>?, _ clientId: UnsafePointer<CChar>?,
    _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    result?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        let home = try Arguments.string(homeAccountId, "home_account_id")
        let client = try Arguments.optionalString(clientId, "client_id")
        let removal = try client.map { try handle.cache.removeAccount(homeAccountId: home, clientId: $0) }
            ?? handle.cache.wipeAccount(homeAccountId: home)
        let object: JSONObject = [
            "deleted": .number(JSONNumber(Int64(removal.deleted.count))),
            "marked_signed_out": .bool(removal.markedSignedOut),
            "wrote_wipe_record": .bool(removal.wroteWipeRecord),
        ]
        deliver(JSONValue.object(object).serializedString(sortingKeys: true), to: result)
    }
}
