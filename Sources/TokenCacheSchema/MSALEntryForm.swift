import TokenCacheJSON

/// The entry forms of an MSAL JSON cache: what MSAL Python, msal-node and MSAL.NET hold in the
/// `AccessToken`, `RefreshToken`, `IdToken`, `Account` and `AppMetadata` sections. Members are in
/// no particular order: writers sort them (``JSONValue/serialized(sortingKeys:)``).
///
/// The unified payload is already that form except for two spellings every reader wants: access
/// tokens carry both `extended_expires_on` and `ext_expires_on` (MSAL.NET writes both), and the key
/// id as `key_id` (Python, msal-node) beside `kid` (MSAL.NET).
extension Credential {
    /// This credential as an MSAL JSON entry, or `nil` for kinds MSAL JSON has no section for.
    ///
    /// A single-model family refresh token (2008) becomes the family-keyed `RefreshToken` entry the
    /// other libraries use (`family_id` `"1"` when it names none).
    public var msalEntry: (section: String, entry: JSONObject)? {
        switch credentialType {
        case .accessToken, .accessTokenWithAuthScheme:
            return ("AccessToken", accessTokenEntry(jsonObject))
        case .other:
            let object = jsonObject
            guard object[Field.credentialType]?.stringValue?.lowercased() == "atext" else { return nil }
            return ("AccessToken", accessTokenEntry(object))
        case .refreshToken:
            return ("RefreshToken", jsonObject)
        case .familyRefreshToken:
            var copy = self
            copy.credentialType = .refreshToken
            if (copy.familyId ?? "").allSatisfy(\.isWhitespace) { copy.familyId = "1" }
            return ("RefreshToken", copy.jsonObject)
        case .idToken:
            return ("IdToken", jsonObject)
        default:
            return nil
        }
    }

    private func accessTokenEntry(_ payload: JSONObject) -> JSONObject {
        var object = payload
        if let extended = extendedExpiresOn.flatMap({ $0 == 0 ? nil : $0 }) ?? expiresOn {
            object[Field.extendedExpiresOn] = .string(String(extended))
            object[Field.extendedExpiresOnLegacy] = .string(String(extended))
        }
        if let keyId, object[Field.keyIdSnakeCase] == nil {
            object[Field.keyIdSnakeCase] = .string(keyId)
        }
        return object
    }
}

extension Account {
    /// This account record as an MSAL JSON `Account` entry.
    public var msalEntry: JSONObject { jsonObject }
}

extension AppMetadata {
    /// This app metadata as an MSAL JSON `AppMetadata` entry.
    public var msalEntry: JSONObject { jsonObject }
}
