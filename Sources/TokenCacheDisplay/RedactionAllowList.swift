import TokenCacheJSON
import TokenCacheSchema

/// The payload members known to be non-secret, per kind of item: everything a view shows without
/// `--reveal-secrets`. Any other member — a token, a session key, a member some library added that
/// this version does not know — is shown redacted, whatever its JSON type.
public enum RedactionAllowList {
    /// Credentials (access, refresh, ID, family refresh, PoP tokens): everything but `secret`.
    public static let credential: Set<String> = [
        "credential_type", "client_id", "home_account_id", "environment", "realm", "target", "family_id",
        "cached_at", "expires_on", "extended_expires_on", "ext_expires_on", "refresh_on", "token_type", "kid",
        "key_id", "keyid", "requested_claims", "enrollment_id", "application_cache_identifier", "redirect_uri",
        "user_assertion_hash", "ext_cache_key", "last_modification_time", "last_modification_app", "expires_in",
    ]

    /// Accounts.
    public static let account: Set<String> = [
        "authority_type", "home_account_id", "environment", "realm", "local_account_id", "username", "given_name",
        "middle_name", "family_name", "name", "client_info", "alternative_account_id", "account_source",
        "last_modification_time", "last_modification_app", "wam_account_ids",
    ]

    /// App metadata.
    public static let appMetadata: Set<String> = ["client_id", "environment", "family_id"]

    /// Account metadata (sign-in state and authority maps per app).
    public static let accountMetadata: Set<String> = [
        "client_id", "home_account_id", "principal_home_account_id", "principal_username", "principal_account_environment",
        "account_metadata_map", "sign_in_state", "athority_map", "authority_map",
    ]

    /// An account's own sign-in state for one app (tokencache's type 9001): an account-metadata entry
    /// and its environment.
    public static let accountSignIn: Set<String> = accountMetadata.union(["environment"])

    /// Legacy ADAL keyed archives (`ADTokenCacheStoreItem` and its kin), and their `userInformation`.
    public static let adalItem: Set<String> = [
        "$class", "authority", "resource", "clientId", "accessTokenType", "expiresOn", "familyId", "cachedAt",
        "homeAccountId", "enrollmentId", "applicationIdentifier", "userInformation",
    ]
    public static let adalUserInformation: Set<String> = ["$class", "userId", "userIdDisplayable", "upn", "email", "oid", "sub", "altsecid"]

    /// The allow-list for a payload: by the item's keychain type, else by its `credential_type`.
    public static func members(forType type: UInt32?, payload: JSONObject) -> Set<String> {
        switch type {
        case .some(2000...2099): return credential
        case .some(1000...1099): return account
        case .some(ItemTypeCode.appMetadata): return appMetadata
        case .some(ItemTypeCode.accountMetadata): return accountMetadata
        case .some(ItemTypeCode.accountSignIn): return accountSignIn
        default:
            // An item without a known type code (a file's entry): its own fields say what it is.
            if payload["credential_type"] != nil { return credential }
            if payload["authority_type"] != nil { return account }
            return []
        }
    }

    /// `object` with the value of every member outside `allowed` replaced by a marker.
    public static func redact(_ object: JSONObject, allowed: Set<String>) -> JSONObject {
        var copy = JSONObject()
        for (key, value) in object {
            copy[key] = allowed.contains(key) ? value : .string(PayloadView.marker(for: value))
        }
        return copy
    }

    /// A decoded legacy ADAL archive, redacted: the item's allow-list, and its `userInformation`'s.
    public static func redactArchive(_ object: JSONObject) -> JSONObject {
        var copy = redact(object, allowed: adalItem)
        if case .object(let user)? = object["userInformation"] {
            copy["userInformation"] = .object(redact(user, allowed: adalUserInformation))
        }
        return copy
    }
}
