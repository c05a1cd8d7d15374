import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The short hash the Apple libraries append to a credential's service when it was requested with
/// claims (`msidTokenHash`): the first 7 lower-case hex digits of SHA-256 over the UTF-8 bytes of
/// `norm(requestedClaims)`.
///
/// - Parameter requestedClaims: the `requested_claims` string as stored.
/// - Returns: e.g. `5a6ffbe`.
public func requestedClaimsHash(_ requestedClaims: String) -> String {
    let digest = SHA256.hash(data: Data(ItemKey.normalized(requestedClaims).utf8))
    let hex = digest.prefix(4).map { byte in
        let text = String(byte, radix: 16)
        return byte < 0x10 ? "0" + text : text
    }.joined()
    return String(hex.prefix(7))
}
