import CacheStore
import Foundation
import TokenCache
import TokenCacheJSON
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

    /// A complete AAD v2 response for user `uid` (home tenant `utid`) issued by tenant `tid`.
    ///
    /// `username` `nil` leaves `preferred_username` out; `claims` are added to (or replace) the ID
    /// token's claims.
    static func aad(
        uid: String = "9f4880d8-80ba-4c40-97bc-f7a23c703084",
        tid: String = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca",
        utid: String? = nil,
        username: String? = "idlab@msidlab4.onmicrosoft.com",
        scope: String? = "Calendars.Read openid profile Tasks.Read User.Read email",
        accessToken: String? = "access-token-secret",
        refreshToken: String? = "refresh-token-secret",
        expiresIn: Int64 = 3600,
        extendedExpiresIn: Int64? = nil,
        refreshIn: Int64? = nil,
        tokenType: String? = nil,
        foci: String? = nil,
        claims: JSONObject = [:]
    ) -> TokenResponse {
        var idClaims: JSONObject = [
            "tid": .string(tid), "oid": .string(uid), "sub": "subject",
            "name": "Cloud IDLAB Basic User",
            "iss": .string("https://login.microsoftonline.com/\(tid)/v2.0"),
        ]
        if let username { idClaims["preferred_username"] = .string(username) }
        for (name, value) in claims { idClaims[name] = value }
        return TokenResponse(
            accessToken: accessToken,
            refreshToken: refreshToken,
            idToken: idToken(idClaims),
            clientInfo: clientInfo(uid: uid, utid: utid ?? tid),
            scope: scope,
            expiresIn: expiresIn,
            extendedExpiresIn: extendedExpiresIn ?? expiresIn * 2,
            refreshIn: refreshIn,
            tokenType: tokenType,
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
