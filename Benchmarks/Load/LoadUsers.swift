import Foundation
import TokenCache
import TokenCacheJSON
import TokenCacheSchema

/// The web app the load benchmark plays: one confidential client in one tenant, whose users each
/// signed in once (an account, an ID token, a refresh token and an access token for `User.Read`).
/// User `n` is the same in every process, so workers ask for what the seeders wrote.
enum LoadUsers {
    static let group = "com.microsoft.adalcache"
    static let clientId = "9d2f6c4e-3b1a-4f7e-8c5d-2a6b0e1f3c47"
    static let tenant = "44444444-4444-4444-8444-444444444444"
    static let environment = "login.microsoftonline.com"
    static let scopes = ["User.Read"]
    static let authority = try! Authority("https://\(environment)/\(tenant)")

    static func uid(_ user: Int) -> String { String(format: "%08x-0000-4000-8000-%012x", user, user) }
    static func homeAccountId(_ user: Int) -> String { "\(uid(user)).\(tenant)" }
    static func username(_ user: Int) -> String { "user\(user)@contoso.onmicrosoft.com" }

    static let request = TokenRequest(authority: authority, clientId: clientId, scopes: scopes)

    /// The silent request's lookup: the user's access token for `User.Read`.
    static func query(_ user: Int) -> AccessTokenQuery {
        AccessTokenQuery(homeAccountId: homeAccountId(user), environment: environment, realm: tenant, clientId: clientId, scopes: scopes)
    }

    // Made once: `String(repeating:count:)` appends a character at a time, and making them for
    // every response cost as much as the save timed with it.
    private static let accessTokenBody = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9." + String(repeating: "a", count: 1500) + "."
    private static let refreshTokenBody = "0.AAAA" + String(repeating: "r", count: 850)

    /// A token response for the user, as the token endpoint returns it: access and refresh tokens
    /// of typical sizes (about 1.6 KB and 0.9 KB), an ID token and client info. `serial` makes each
    /// response's tokens new, as a refresh does.
    static func response(_ user: Int, serial: Int = 0) -> TokenResponse {
        func encode(_ object: JSONObject) -> String { Base64URL.encode(JSONValue.object(object).serialized()) }
        let uid = uid(user)
        let claims: JSONObject = [
            "aud": .string(clientId), "iss": .string("https://\(environment)/\(tenant)/v2.0"),
            "tid": .string(tenant), "oid": .string(uid), "sub": .string("sub-\(uid)"),
            "preferred_username": .string(username(user)), "name": .string("User \(user)"), "ver": "2.0",
        ]
        let stamp = "\(uid).\(serial)"
        return TokenResponse(
            accessToken: accessTokenBody + stamp,
            refreshToken: refreshTokenBody + stamp,
            idToken: encode(["typ": "JWT", "alg": "RS256"]) + "." + encode(claims) + ".signature",
            clientInfo: encode(["uid": .string(uid), "utid": .string(tenant)]),
            scope: "User.Read openid profile offline_access", expiresIn: 86_400, extendedExpiresIn: 172_800, familyId: nil)
    }
}
