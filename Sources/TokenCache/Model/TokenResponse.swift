@_spi(Text) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// The fields of an OAuth2 token response the cache stores.
///
/// Secrets (`accessToken`, `refreshToken`, `idToken`) are kept as given and never appear in
/// descriptions or errors.
public struct TokenResponse: Sendable, Hashable {
    public var accessToken: String?
    public var refreshToken: String?
    /// The raw ID token (a JWT).
    public var idToken: String?
    /// The raw base64url `client_info` (`{"uid": …, "utid": …}`).
    public var clientInfo: String?
    /// The granted scopes, space-separated, as the server returned them.
    public var scope: String?
    /// Seconds until the access token expires.
    public var expiresIn: Int64?
    /// Seconds until the access token's extended lifetime ends.
    public var extendedExpiresIn: Int64?
    /// Seconds after which the access token should be refreshed proactively.
    public var refreshIn: Int64?
    /// `Bearer`, `pop`, `ssh-cert`, … (`nil` means Bearer).
    public var tokenType: String?
    /// The family id (`"1"`) when the client is in the family of client ids.
    public var familyId: String?

    public init(
        accessToken: String? = nil,
        refreshToken: String? = nil,
        idToken: String? = nil,
        clientInfo: String? = nil,
        scope: String? = nil,
        expiresIn: Int64? = nil,
        extendedExpiresIn: Int64? = nil,
        refreshIn: Int64? = nil,
        tokenType: String? = nil,
        familyId: String? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.clientInfo = clientInfo
        self.scope = scope
        self.expiresIn = expiresIn
        self.extendedExpiresIn = extendedExpiresIn
        self.refreshIn = refreshIn
        self.tokenType = tokenType
        self.familyId = familyId
    }

    /// Reads the JSON body of a token endpoint response (`access_token`, `refresh_token`, `id_token`,
    /// `client_info`, `scope`, `expires_in`, `ext_expires_in`, `refresh_in`, `token_type`, `foci`).
    /// Durations may be numbers or strings, as servers send either.
    public init(json data: Data) throws(TokenCacheError) {
        let object: JSONObject
        do {
            guard let parsed = try JSONValue.parse(data).objectValue else {
                throw TokenCacheError.invalidTokenResponse("the response is not a JSON object")
            }
            object = parsed
        } catch let error as TokenCacheError {
            throw error
        } catch {
            throw .invalidTokenResponse("the response is not valid JSON (\(error))")
        }
        func string(_ name: String) throws(TokenCacheError) -> String? {
            switch object[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw .invalidTokenResponse("'\(name)' must be a string")
            }
        }
        func seconds(_ name: String) throws(TokenCacheError) -> Int64? {
            switch object[name] {
            case nil, .null?: return nil
            case .string(let value)?:
                guard let number = Int64(value.trimming(.whitespaces)) else {
                    throw .invalidTokenResponse("'\(name)' must be a whole number of seconds")
                }
                return number
            case .number(let number)?:
                guard let value = number.truncatedInt64 else {
                    throw .invalidTokenResponse("'\(name)' must be a whole number of seconds")
                }
                return value
            default:
                throw .invalidTokenResponse("'\(name)' must be a number of seconds")
            }
        }
        self.init(
            accessToken: try string("access_token"),
            refreshToken: try string("refresh_token"),
            idToken: try string("id_token"),
            clientInfo: try string("client_info"),
            scope: try string("scope"),
            expiresIn: try seconds("expires_in"),
            extendedExpiresIn: try seconds("ext_expires_in"),
            refreshIn: try seconds("refresh_in"),
            tokenType: try string("token_type"),
            familyId: try string("foci"))
    }
}

/// The request a token response answers: who asked, where, for what.
public struct TokenRequest: Sendable, Hashable {
    public var authority: Authority
    public var clientId: String
    /// The scopes asked for; used as the token's target when the response names none.
    public var scopes: [String]
    /// The claims request sent with it, if any (access tokens are keyed by it).
    public var requestedClaims: String?
    /// The proof-of-possession key id (`kid`) for `pop` tokens.
    public var keyId: String?
    /// The optional application identifier (bundle id) part of MSAL ObjC keys.
    public var applicationIdentifier: String?
    /// The v1 resource the access token is for, when the request named one. Only used for the
    /// legacy ADAL access-token entry written with ``TokenCache/Configuration/writesLegacyADALItems``.
    public var resource: String?

    public init(
        authority: Authority,
        clientId: String,
        scopes: [String],
        requestedClaims: String? = nil,
        keyId: String? = nil,
        applicationIdentifier: String? = nil,
        resource: String? = nil
    ) {
        self.authority = authority
        self.clientId = clientId
        self.scopes = scopes
        self.requestedClaims = requestedClaims
        self.keyId = keyId
        self.applicationIdentifier = applicationIdentifier
        self.resource = resource
    }
}
