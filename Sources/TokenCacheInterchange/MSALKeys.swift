@_spi(Text) import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// The keys MSAL.NET gives entries in its JSON cache (`MsalCacheKeys.GetCredentialKey` and each
/// item's `InitCacheKey`), lower-cased. Readers ignore or lower-case keys, so lower-casing the
/// account key too (MSAL.NET leaves it as is) makes every key comparable.
enum MSALKeys {
    /// `<hai>-<env>-<descriptor>-<client or family id>-<realm>-<target>[-<extra>…]`; an access
    /// token with an `ext_cache_key` is keyed as MSAL Python keys it (`atext`, the key last).
    static func credential(_ credential: Credential, extended: Bool) -> String {
        let hai = credential.homeAccountId ?? ""
        let env = credential.environment ?? ""
        let client = credential.clientId ?? ""
        switch credential.credentialType {
        case .refreshToken, .familyRefreshToken, .boundRefreshToken, .primaryRefreshToken:
            let family = credential.familyId.flatMap { $0.trimming(.whitespaces).isEmpty ? nil : $0 }
            return join([hai, env, "refreshtoken", family ?? client, "", ""])
        case .idToken, .v1IdToken:
            return join([hai, env, "idtoken", client, credential.realm ?? "", ""])
        default:
            let tokenType = credential.tokenType ?? "Bearer"
            let plain = ["bearer", "ssh-cert"].contains(tokenType.lowercased())
            // MSAL Python's and Go's extended key: `atext`, and the key itself last.
            let extCacheKey = credential.extCacheKey.flatMap { $0.trimming(.whitespaces).isEmpty ? nil : $0 }
            var parts = [hai, env, extended || extCacheKey != nil ? "atext" : plain ? "accesstoken" : "accesstoken_with_authscheme",
                         client, credential.realm ?? "", credential.target ?? ""]
            if !plain { parts.append(tokenType) }
            if extended, case .object(let ext)? = credential.additionalFields["ext"] {
                parts.append(extensionHash(ext))
            } else if let extCacheKey {
                parts.append(extCacheKey)
            }
            return join(parts)
        }
    }

    /// `<hai>-<env>-<realm>`.
    static func account(_ account: Account) -> String {
        join([account.homeAccountId ?? "", account.environment ?? "", account.realm ?? ""])
    }

    /// `appmetadata-<env>-<client id>`.
    static func appMetadata(_ metadata: AppMetadata) -> String {
        join(["appmetadata", metadata.environment ?? "", metadata.clientId ?? ""])
    }

    private static func join(_ parts: [String]) -> String {
        parts.joined(separator: "-").lowercased()
    }

    /// MSAL.NET's hash of additional cache-key components: `key + value` of every pair in key order,
    /// concatenated, SHA-256, base64url (`CoreHelpers.ComputeAccessTokenExtCacheKey`).
    static func extensionHash(_ components: JSONObject) -> String {
        var text = ""
        for (key, value) in components.sortedMembers {
            text += key
            switch value {
            case .string(let string): text += string
            case .number(let number): text += number.text
            default: text += value.serializedString()
            }
        }
        return Base64URL.encode(Data(SHA256.hash(data: Data(text.utf8))))
    }
}
