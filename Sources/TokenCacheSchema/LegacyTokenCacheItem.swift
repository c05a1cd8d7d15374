import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import TokenCacheJSON

/// A legacy ADAL token entry: the `ADTokenCacheStoreItem` keyed archive ADAL 1.x/2.x and
/// IdentityCore keep under `MSOpenTech.ADAL.1|…` keys.
///
/// Reading walks the archive without instantiating classes (any of ADAL's class names are
/// accepted); writing produces the archive ADAL reads: root class `ADTokenCacheStoreItem`, user
/// information `ADUserInformation`. Root fields this model does not know (`sessionKey`, the ADAL 2.2
/// `tombstone` dictionary, …) are kept and written back.
public struct LegacyTokenCacheItem: Sendable, Hashable {
    /// What an entry holds, inferred the way IdentityCore infers it.
    public enum Kind: Sendable, Hashable {
        /// An access token for one resource.
        case accessToken
        /// A multi-resource refresh token (`resource` nil), or a family refresh token (`clientId` `foci-<id>`).
        case refreshToken
        /// An access token and a refresh token for one resource (ADAL's single-resource entries).
        case singleResourceToken
    }

    /// The class names Apple's libraries archive these as.
    public static let className = "ADTokenCacheStoreItem"
    public static let userInformationClassName = "ADUserInformation"
    /// Class names accepted for the root object on read.
    public static let acceptedClassNames: Set<String> = [
        "ADTokenCacheStoreItem", "ADTokenCacheItem", "ADALTokenCacheItem", "MSIDLegacyTokenCacheItem",
    ]

    /// The authority URL, e.g. `https://login.microsoftonline.com/common`.
    public var authority: String
    /// The resource the access token is for; `nil` for multi-resource and family refresh tokens.
    public var resource: String?
    /// The client id as the app gave it (`foci-1` on family refresh token entries).
    public var clientId: String
    public var accessToken: String?
    /// `Bearer` unless the server said otherwise.
    public var accessTokenType: String?
    public var refreshToken: String?
    public var expiresOn: Date?
    public var familyId: String?
    /// The raw ID token from the user information; it may be a single segment without dots.
    public var rawIdToken: String?
    /// `userId` of the user information, when the archive has one (iOS writers).
    public var storedUserId: String?
    public var cachedAt: Date?
    public var homeAccountId: String?
    public var enrollmentId: String?
    public var applicationIdentifier: String?
    /// The rest of the token response (`additionalServer`), including IdentityCore's
    /// `extended_expires_on` and ADAL 2.x's `ext_expires_on`.
    public var additionalServer: ArchivedValue?
    /// Root fields not modelled above, kept for the round trip.
    public var otherFields: [ArchivedObject.Field]

    public init(
        authority: String,
        resource: String? = nil,
        clientId: String,
        accessToken: String? = nil,
        accessTokenType: String? = "Bearer",
        refreshToken: String? = nil,
        expiresOn: Date? = nil,
        familyId: String? = nil,
        rawIdToken: String? = nil,
        cachedAt: Date? = nil,
        homeAccountId: String? = nil,
        additionalServer: ArchivedValue? = nil
    ) {
        self.authority = authority
        self.resource = resource
        self.clientId = clientId
        self.accessToken = accessToken
        self.accessTokenType = accessTokenType
        self.refreshToken = refreshToken
        self.expiresOn = expiresOn
        self.familyId = familyId
        self.rawIdToken = rawIdToken
        self.cachedAt = cachedAt
        self.homeAccountId = homeAccountId
        self.additionalServer = additionalServer
        self.otherFields = []
    }

    /// The tombstone marker ADAL 2.x put in `refreshToken`.
    public static let tombstoneRefreshToken = "<tombstone>"

    public var isTombstone: Bool { refreshToken == Self.tombstoneRefreshToken }

    /// What the entry holds: decided by which tokens are present, as IdentityCore decides.
    public var kind: Kind {
        let hasAccess = !(accessToken ?? "").isEmpty
        let hasRefresh = !(refreshToken ?? "").isEmpty
        if hasAccess && hasRefresh { return .singleResourceToken }
        return hasRefresh ? .refreshToken : .accessToken
    }

    /// The claims of ``rawIdToken``: every `.`-separated part that decodes to a JSON object, merged
    /// (so a header-less single-segment token reads too).
    public var idTokenClaims: JSONObject? {
        guard let rawIdToken else { return nil }
        var merged = JSONObject()
        var found = false
        for part in rawIdToken.split(separator: ".", omittingEmptySubsequences: false) {
            guard let data = Base64URL.decode(String(part)),
                let object = (try? JSONValue.parse(data))?.objectValue
            else { continue }
            found = true
            for (key, value) in object { merged[key] = value }
        }
        return found ? merged : nil
    }

    /// The user's displayable id, as ADAL derives it: the first non-blank of `upn`, `email`, `sub`,
    /// `oid`, `unique_name` (IdentityCore adds `altsecid`) of the ID token, normalized; else the
    /// archived `userId`.
    public var userId: String? {
        if let claims = idTokenClaims {
            for name in ["upn", "email", "sub", "oid", "unique_name", "altsecid"] {
                if let value = claims[name]?.stringValue {
                    let normalized: String = ItemKey.normalized(value)
                    if !normalized.isEmpty { return normalized }
                }
            }
        }
        let stored: String = ItemKey.normalized(storedUserId ?? "")
        return stored.isEmpty ? nil : stored
    }

    /// The family id of a family refresh token entry (`foci-1` → `1`), else ``familyId``.
    public var effectiveFamilyId: String? {
        if clientId.lowercased().hasPrefix(LegacyCacheKey.familyClientIdPrefix) {
            return String(clientId.dropFirst(LegacyCacheKey.familyClientIdPrefix.count))
        }
        return familyId
    }

    /// IdentityCore's `extended_expires_on`, else ADAL 2.x's `ext_expires_on`, from `additionalServer`.
    public var extendedExpiresOn: Date? {
        for key in ["extended_expires_on", "ext_expires_on"] {
            if case .date(let date)? = additionalServer?[key] { return date }
        }
        return nil
    }

    /// The key this entry is stored under by ADAL for `userId` (its own ``userId`` by default).
    public func key(userId: String? = nil) -> LegacyCacheKey {
        LegacyCacheKey(
            authority: authority, resource: resource, clientId: clientId, userId: userId ?? self.userId,
            applicationIdentifier: applicationIdentifier)
    }

    /// The item to save in `accessGroup`, keyed for `userId` (by default the entry's own ``userId``;
    /// IdentityCore passes the account's displayable id, e.g. a v2 token's `preferred_username`).
    public func storeItem(accessGroup: String, userId: String? = nil) -> StoreItem {
        let key = key(userId: userId)
        return StoreItem(
            accessGroup: accessGroup, account: key.account, service: key.service,
            generic: LegacyCacheKey.generic, type: nil, data: archiveData)
    }

    // MARK: - Archive

    /// Reads an archived entry.
    ///
    /// - Throws: ``SchemaError/malformedArchive(_:item:)`` when the bytes are not a keyed archive;
    ///   ``SchemaError/invalidField(_:reason:item:)`` or ``SchemaError/missingField(_:item:)`` when the
    ///   root is not an ADAL token item or lacks its authority or client id.
    public init(archive data: Data) throws(SchemaError) {
        let root: ArchivedValue
        do {
            root = try KeyedArchive.decode(data)
        } catch {
            throw .malformedArchive(error, item: nil)
        }
        guard case .object(let object) = root else {
            throw .invalidField("root", reason: "is not an archived object", item: nil)
        }
        try self.init(archivedObject: object)
    }

    /// Reads an entry already decoded from a larger archive (ADAL's macOS cache holds many).
    public init(archivedObject object: ArchivedObject) throws(SchemaError) {
        guard Self.acceptedClassNames.contains(object.className) else {
            throw .invalidField("root", reason: "is a \(object.className), not an ADAL token cache item", item: nil)
        }
        func string(_ key: String) throws(SchemaError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw .invalidField(key, reason: "is not a string", item: nil)
            }
        }
        func date(_ key: String) throws(SchemaError) -> Date? {
            switch object[key] {
            case nil, .null?: return nil
            case .date(let value)?:
                guard UnixTime.isValid(value) else {
                    throw .invalidField(key, reason: "is a date out of range: it must be \(UnixTime.rangeDescription)", item: nil)
                }
                return value
            default: throw .invalidField(key, reason: "is not a date", item: nil)
            }
        }
        guard let authority = try string("authority") else { throw .missingField("authority", item: nil) }
        guard let clientId = try string("clientId") else { throw .missingField("clientId", item: nil) }
        self.init(
            authority: authority,
            resource: try string("resource"),
            clientId: clientId,
            accessToken: try string("accessToken"),
            accessTokenType: try string("accessTokenType"),
            refreshToken: try string("refreshToken"),
            expiresOn: try date("expiresOn"),
            familyId: try string("familyId"),
            cachedAt: try date("cachedAt"),
            homeAccountId: try string("homeAccountId"))
        enrollmentId = try string("enrollmentId")
        applicationIdentifier = try string("applicationIdentifier")
        switch object["additionalServer"] {
        case nil, .null?: additionalServer = nil
        case .dictionary(let className, let keys, let values)?:
            additionalServer = .dictionary(className: className, keys: keys, values: values)
        default: throw .invalidField("additionalServer", reason: "is not a dictionary", item: nil)
        }
        for key in ["extended_expires_on", "ext_expires_on"] {
            if case .date(let date)? = additionalServer?[key], !UnixTime.isValid(date) {
                throw .invalidField("additionalServer.\(key)", reason: "is a date out of range: it must be \(UnixTime.rangeDescription)", item: nil)
            }
        }
        switch object["userInformation"] {
        case nil, .null?: break
        case .object(let user)?:
            rawIdToken = user["rawIdToken"]?.stringValue
            storedUserId = user["userId"]?.stringValue
        default: throw .invalidField("userInformation", reason: "is not an archived object", item: nil)
        }
        otherFields = object.fields.filter { !Self.modelledKeys.contains($0.key) }
    }

    private static let modelledKeys: Set<String> = [
        "authority", "resource", "clientId", "accessToken", "accessTokenType", "refreshToken", "expiresOn",
        "familyId", "cachedAt", "homeAccountId", "enrollmentId", "applicationIdentifier", "additionalServer",
        "additionalClient", "userInformation",
    ]

    /// The keyed archive ADAL reads: `ADTokenCacheStoreItem` with an `ADUserInformation` carrying the
    /// raw ID token and, as ADAL on iOS writes it, `userId`, `userIdDisplayable` and `allClaims`.
    public var archiveData: Data {
        func optional(_ value: String?) -> ArchivedValue { value.map(ArchivedValue.string) ?? .null }
        // A date the reader would refuse (not finite, beyond the year 9999) is written clamped.
        func bounded(_ date: Date) -> Date {
            UnixTime.isValid(date) ? date : Date(timeIntervalSince1970: TimeInterval(UnixTime.clampedSeconds(date)))
        }
        func optional(_ value: Date?) -> ArchivedValue { value.map { ArchivedValue.date(bounded($0)) } ?? .null }
        var boundedServer = additionalServer ?? .dictionary([])
        if case .dictionary(let className, let keys, var values) = boundedServer {
            for position in values.indices {
                if case .date(let date) = values[position] { values[position] = .date(bounded(date)) }
            }
            boundedServer = .dictionary(className: className, keys: keys, values: values)
        }
        var fields: [ArchivedObject.Field] = [
            .init("resource", optional(resource)),
            .init("authority", .string(authority)),
            .init("clientId", .string(clientId)),
            .init("accessToken", optional(accessToken)),
            .init("accessTokenType", .string((accessTokenType ?? "").isEmpty ? "Bearer" : accessTokenType!)),
            .init("refreshToken", optional(refreshToken)),
            .init("expiresOn", optional(expiresOn)),
            .init("familyId", optional(familyId)),
            .init("additionalClient", .dictionary([], className: "NSMutableDictionary")),
            .init("additionalServer", boundedServer),
        ]
        if let cachedAt { fields.append(.init("cachedAt", .date(bounded(cachedAt)))) }
        if let homeAccountId { fields.append(.init("homeAccountId", .string(homeAccountId))) }
        if let enrollmentId { fields.append(.init("enrollmentId", .string(enrollmentId))) }
        if let applicationIdentifier { fields.append(.init("applicationIdentifier", .string(applicationIdentifier))) }
        if let rawIdToken {
            var user: [ArchivedObject.Field] = [.init("rawIdToken", .string(rawIdToken))]
            if let userId {
                user.append(.init("userId", .string(userId)))
                user.append(.init("userIdDisplayable", .bool(true)))
            }
            let claims = idTokenClaims
            var withClaims = user
            if let claims { withClaims.append(.init("allClaims", Self.archived(.object(claims)))) }
            let root = fields + [.init("userInformation", .object(ArchivedObject(className: Self.userInformationClassName, fields: withClaims)))] + otherFields
            let data = KeyedArchive.encode(root: .object(ArchivedObject(className: Self.className, fields: root)))
            // What is written must read back: claims nested or numerous past the reader's limits (an
            // ID token's claims are the server's) are left out; `allClaims` is a copy of what the raw
            // ID token holds, and readers take the claims from the token.
            guard let claims, Self.mayExceedArchiveLimits(.object(claims)), (try? KeyedArchive.decode(data)) == nil else { return data }
            fields.append(.init("userInformation", .object(ArchivedObject(className: Self.userInformationClassName, fields: user))))
        } else {
            fields.append(.init("userInformation", .null))
        }
        fields += otherFields
        return KeyedArchive.encode(root: .object(ArchivedObject(className: Self.className, fields: fields)))
    }

    /// Whether `value` nests deeper than 32 levels or holds more than 1,000 values: only then can the
    /// archive of it come near ``KeyedArchive/maximumDepth`` or ``KeyedArchive/maximumValues``.
    static func mayExceedArchiveLimits(_ value: JSONValue) -> Bool {
        var budget = 1_000
        func walk(_ value: JSONValue, depth: Int) -> Bool {
            budget -= 1
            if depth > 32 || budget < 0 { return true }
            switch value {
            case .object(let object): return object.contains { walk($0.value, depth: depth + 1) }
            case .array(let elements): return elements.contains { walk($0, depth: depth + 1) }
            default: return false
            }
        }
        return walk(value, depth: 0)
    }

    /// A JSON value as Foundation archives what `NSJSONSerialization` returns.
    private static func archived(_ value: JSONValue) -> ArchivedValue {
        switch value {
        case .object(let object):
            return .dictionary(object.map { ($0.key, archived($0.value)) })
        case .array(let values): return .array(className: "NSArray", values.map(archived))
        case .string(let text): return .string(text)
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .number(let number):
            if let integer = Int64(number.text) { return .integer(integer) }
            return .real(number.doubleValue)
        }
    }
}
