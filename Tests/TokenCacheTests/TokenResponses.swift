import CacheStore
import Foundation
import TokenCache
import TokenCacheSchema

/// Builders for realistic token responses: unsigned JWTs and client_info as servers send them.
enum TokenResponses {
    static func base64URL(_ object: JSONObject) -> String {
        Base64URL.encode(JSONValue.object(object).serialized())
    }

    /// An unsigned JWT (`header.claims.`) with these claims.
    static func idToken(_ claims: JSONObject) -> String {
        base64URL(["alg": "none", "typ": "JWT"]) + "." + base64URL(claims) + "."
    }

    static func clientInfo(uid: String, utid: String) -> String {
        base64URL(["uid": .string(uid), "utid": .string(utid)])
    }

    /// A complete AAD v2 response for user `uid` in tenant `tid`.
    static func aad(
        uid: String = "9f4880d8-80ba-4c40-97bc-f7a23c703084",
        tid: String = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca",
        username: String = "idlab@msidlab4.onmicrosoft.com",
        scope: String = "Calendars.Read openid profile Tasks.Read User.Read email",
        accessToken: String = "access-token-secret",
        refreshToken: String? = "refresh-token-secret",
        expiresIn: Int64 = 3600,
        foci: String? = nil
    ) -> TokenResponse {
        TokenResponse(
            accessToken: accessToken,
            refreshToken: refreshToken,
            idToken: idToken([
                "tid": .string(tid), "oid": .string(uid), "sub": "subject",
                "preferred_username": .string(username), "name": "Cloud IDLAB Basic User",
                "iss": .string("https://login.microsoftonline.com/\(tid)/v2.0"),
            ]),
            clientInfo: clientInfo(uid: uid, utid: tid),
            scope: scope,
            expiresIn: expiresIn,
            extendedExpiresIn: expiresIn * 2,
            familyId: foci)
    }
}

/// A fixed clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

    var now: Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
