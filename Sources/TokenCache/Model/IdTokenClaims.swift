#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// The claims of an ID token, read without verifying its signature (the cache stores what the
/// library already validated).
///
/// Every `.`-separated part that decodes to a JSON object is considered, as MSAL and ADAL do, so an
/// unsigned single-segment token (written by old ADAL versions) reads too.
public struct IdTokenClaims: Sendable, Hashable {
    /// Every claim, as sent.
    public let claims: JSONObject

    /// Parses `rawToken`; `nil` when no part of it is a base64url JSON object.
    public init?(rawToken: String) {
        var token = rawToken
        // Parts found on the contiguous bytes, as far as the claims: splitting a String on a
        // Character walks grapheme clusters, and splitting its UTF-8 view walks it generically to
        // the end of the signature; this runs on every save.
        let found = token.withUTF8 { bytes -> JSONObject? in
            var payload: JSONObject?
            var start = 0
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
                defer { start = end + 1 }
                guard let data = Base64URL.decode(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)),
                    let object = (try? JSONValue.parse(data))?.objectValue
                else { continue }
                // The JOSE header has only `alg`/`typ`/`kid`…; the claims set has the identity claims.
                if object["iss"] != nil || object["sub"] != nil || object["oid"] != nil || object["tid"] != nil {
                    return object
                }
                if payload == nil { payload = object }
            }
            return payload
        }
        guard let payload = found else { return nil }
        claims = payload
    }

    /// A claim that is a string.
    public subscript(name: String) -> String? { claims[name]?.stringValue }

    /// `tid`: the tenant that issued the token.
    public var tenantId: String? { self["tid"] }
    /// `oid`, else `sub`: the account's id in that tenant.
    public var objectId: String? { self["oid"] ?? self["sub"] }
    public var subject: String? { self["sub"] }
    /// `preferred_username`, else `upn`, else `unique_name`, else `email`.
    public var username: String? { self["preferred_username"] ?? self["upn"] ?? self["unique_name"] ?? self["email"] }
    public var name: String? { self["name"] }
    public var givenName: String? { self["given_name"] }
    public var familyName: String? { self["family_name"] }
    public var middleName: String? { self["middle_name"] }
    /// `altsecid`: an alternative security id (guest and MSA-passthrough accounts).
    public var alternativeSecurityId: String? { self["altsecid"] }
}

/// The `client_info` of a token response: base64url JSON `{"uid": …, "utid": …}`.
public struct ClientInfo: Sendable, Hashable {
    public let uid: String
    public let utid: String

    /// Parses the raw base64url text; `nil` when it is not a `uid`/`utid` object.
    public init?(raw: String) {
        guard let data = Base64URL.decode(raw),
            let object = (try? JSONValue.parse(data))?.objectValue,
            let uid = object["uid"]?.stringValue, let utid = object["utid"]?.stringValue
        else { return nil }
        self.uid = uid
        self.utid = utid
    }

    /// `uid.utid`, lower-cased: the home account id.
    public var homeAccountId: String { "\(uid).\(utid)".lowercased() }
}
