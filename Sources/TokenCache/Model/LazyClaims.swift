import CacheStore
import TokenCacheJSON
import TokenCacheSchema

/// The claims of an ID token, parsed on first use and kept; shared by every copy of the entry.
final class LazyClaims: Sendable {
    private let box: CredentialBox
    private let parsed = StateLock<JSONObject??>(nil)

    init(_ box: CredentialBox) { self.box = box }

    var value: JSONObject? {
        parsed.withLock { parsed in
            if let parsed { return parsed }
            let claims = IdTokenClaims(rawToken: box.credential.secret)?.claims
            parsed = .some(claims)
            return claims
        }
    }
}
