import CacheStore
import CacheStoreMemory
import Foundation
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// Identities used across the suite: one user, a guest tenant, three apps.
enum IDs {
    static let group = "com.microsoft.adalcache"
    static let uid = "9f4880d8-80ba-4c40-97bc-f7a23c703084"
    static let homeTenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let guestTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let otherTenant = "0287f963-2d72-4363-9e3a-5705c5b0f031"
    static let msaTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
    static let home = "\(uid).\(homeTenant)"
    static let username = "idlab@msidlab4.onmicrosoft.com"
    /// App A (MSAL ObjC's schema tests use this client id).
    static let appA = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let appB = "d3590ed6-52b3-4102-aeff-aad2292ab01c"
    static let appC = "27922004-5251-4030-b22d-91ecd9a37ea4"
    /// A second user.
    static let uid2 = "1b6e4d8a-0a5e-4a8c-9c1e-9bd8e0c0b7a2"
    static let home2 = "\(uid2).\(homeTenant)"
}

/// A memory store, an engine on it with a hand-moved clock, and helpers to read what was stored.
struct CacheFixture {
    let clock: TestClock
    let store: any ItemStore
    let cache: TokenCache

    init(
        maximumDataSize: Int = StoreLimits.maximumDataSize,
        useSingleFamilyRefreshToken: Bool = false,
        applicationName: String = "com.contoso.tests"
    ) throws {
        let store = MemoryStore(accessGroups: try AccessGroups([IDs.group]), maximumDataSize: maximumDataSize)
        try self.init(store: store, useSingleFamilyRefreshToken: useSingleFamilyRefreshToken, applicationName: applicationName)
    }

    init(store: any ItemStore, clock: TestClock = TestClock(), useSingleFamilyRefreshToken: Bool = false, applicationName: String = "com.contoso.tests") throws {
        self.clock = clock
        self.store = store
        cache = try TokenCache(store: store, configuration: .init(
            useSingleFamilyRefreshToken: useSingleFamilyRefreshToken,
            applicationName: applicationName,
            clock: { clock.now }))
    }

    /// Whole seconds of the clock, as the schema stores them.
    var now: Int64 { Int64(clock.now.timeIntervalSince1970) }

    static func request(
        _ authority: String = "https://login.microsoftonline.com/common",
        clientId: String = IDs.appA,
        scopes: [String] = ["User.Read"],
        requestedClaims: String? = nil,
        keyId: String? = nil,
        applicationIdentifier: String? = nil
    ) throws -> TokenRequest {
        TokenRequest(
            authority: try Authority(authority), clientId: clientId, scopes: scopes,
            requestedClaims: requestedClaims, keyId: keyId, applicationIdentifier: applicationIdentifier)
    }

    /// Saves an AAD response for the default user through `authority` by `clientId`.
    @discardableResult
    func save(
        _ response: TokenResponse = TokenResponses.aad(),
        authority: String = "https://login.microsoftonline.com/common",
        clientId: String = IDs.appA,
        requestedClaims: String? = nil,
        keyId: String? = nil,
        applicationIdentifier: String? = nil
    ) throws -> SavedTokens {
        try cache.save(response, for: Self.request(
            authority, clientId: clientId, requestedClaims: requestedClaims, keyId: keyId,
            applicationIdentifier: applicationIdentifier))
    }

    func allItems() throws -> [StoreItem] { try store.allItems() }

    func items(type: UInt32) throws -> [StoreItem] { try store.items(matching: ItemQuery(type: .code(type))) }

    /// The one item with these attributes (any type when `type` is nil), or a test failure.
    func item(account: String, service: String, type: UInt32?) throws -> StoreItem {
        let matches = try store.items(matching: ItemQuery(account: account, service: service, type: .init(type)))
        return try #require(matches.count == 1 ? matches.first : nil, "no single item \(account) / \(service) / \(String(describing: type))")
    }

    /// Puts a raw item into the store, as another library would.
    func put(_ item: StoreItem) throws { try store.save(item) }

    func put(_ credential: Credential) throws { try store.save(try credential.storeItem(accessGroup: IDs.group)) }
    func put(_ account: Account) throws { try store.save(try account.storeItem(accessGroup: IDs.group)) }
    func put(_ metadata: AppMetadata) throws { try store.save(try metadata.storeItem(accessGroup: IDs.group)) }
    func put(_ metadata: AccountMetadata) throws { try store.save(try metadata.storeItem(accessGroup: IDs.group)) }

    func accessToken(
        home: String = IDs.home, environment: String = "login.microsoftonline.com", realm: String? = IDs.homeTenant,
        clientId: String = IDs.appA, scopes: [String] = ["User.Read"], tokenType: String? = nil, keyId: String? = nil,
        requestedClaims: String? = nil, applicationIdentifier: String? = nil
    ) throws -> FoundAccessToken? {
        try cache.accessToken(AccessTokenQuery(
            homeAccountId: home, environment: environment, realm: realm, clientId: clientId, scopes: scopes,
            tokenType: tokenType, keyId: keyId, requestedClaims: requestedClaims,
            applicationIdentifier: applicationIdentifier))
    }
}

/// The JSON object of a stored payload.
func payload(_ item: StoreItem) throws -> JSONObject {
    try #require(try JSONValue.parse(item.data).objectValue)
}

/// A payload's members as plain strings (every unified scalar is a string); fails on any other kind.
func stringMembers(_ object: JSONObject) throws -> [String: String] {
    var result: [String: String] = [:]
    for (key, value) in object {
        let string: String = try #require(value.stringValue, "'\(key)' is a \(value.kindName), not a string")
        result[key] = string
    }
    return result
}

func text(_ data: Data?) -> String? { data.map { String(decoding: $0, as: UTF8.self) } }
