import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON

/// The account-metadata item of one client: its principal account, and per home account the
/// sign-in state and the authority map (which authority a request URL actually resolved to).
///
/// As in the Apple libraries the payload is rebuilt from these fields on every write: unknown
/// members are **not** preserved.
public struct AccountMetadata: SchemaItem {
    /// The payload keys.
    public enum Field {
        /// The `client_id` member.
        public static let clientId = "client_id"
        /// The `principal_home_account_id` member.
        public static let principalHomeAccountId = "principal_home_account_id"
        /// The `principal_username` member.
        public static let principalUsername = "principal_username"
        /// The `principal_account_environment` member.
        public static let principalAccountEnvironment = "principal_account_environment"
        /// The `account_metadata_map` member.
        public static let accountMetadataMap = "account_metadata_map"
        /// The `home_account_id` member.
        public static let homeAccountId = "home_account_id"
        /// The `sign_in_state` member.
        public static let signInState = "sign_in_state"
        /// Spelled as the Apple libraries spell it (`MSID_AUTHORITY_MAP_CACHE_KEY`).
        public static let authorityMap = "athority_map"
    }

    /// The account attribute of every account-metadata item.
    public static let keyAccount = "authority_map"

    /// The authority-map key of mappings made without instance awareness.
    public static let urlMapKey = "URLMap-"
    /// The authority-map key of mappings made with `instance_aware=YES`.
    public static let instanceAwareURLMapKey = "URLMap-instance_aware=YES"

    /// Whether an account is signed in to this client.
    public enum SignInState: String, Sendable, Hashable, CaseIterable {
        /// `signed_in`.
        case signedIn = "signed_in"
        /// `signed_out`: hides the account from this client's account list.
        case signedOut = "signed_out"
        /// Also what any unrecognized `sign_in_state` reads as.
        case unknown
    }

    /// The metadata of one home account.
    public struct Entry: Sendable, Hashable {
        /// `client_id`.
        public var clientId: String?
        /// `home_account_id`; the map key when the entry has none.
        public var homeAccountId: String
        /// `sign_in_state`.
        public var signInState: SignInState
        /// URL-map key (``AccountMetadata/urlMapKey``, ``AccountMetadata/instanceAwareURLMapKey``)
        /// → request authority URL → authority URL actually used.
        public var authorityMap: [String: [String: String]]

        /// The entry's object in `account_metadata_map`.
        public var jsonObject: JSONObject {
            var object = JSONObject()
            object.set(Field.clientId, clientId)
            object.set(Field.homeAccountId, homeAccountId)
            object.set(Field.signInState, signInState.rawValue)
            var authorityMap = JSONObject()
            for (mapKey, urls) in self.authorityMap {
                authorityMap[mapKey] = .object(JSONObject(urls.map { ($0.key, JSONValue.string($0.value)) }))
            }
            object[Field.authorityMap] = .object(authorityMap)
            return object
        }

        /// Sets the sign-in state; signing out clears the URL maps, as `updateSignInState:` does.
        public mutating func setSignInState(_ state: SignInState) {
            signInState = state
            if state == .signedOut { authorityMap = [:] }
        }

        /// Creates an entry, signed in with no mappings by default.
        public init(clientId: String?, homeAccountId: String, signInState: SignInState = .signedIn, authorityMap: [String: [String: String]] = [:]) {
            self.clientId = clientId
            self.homeAccountId = homeAccountId
            self.signInState = signInState
            self.authorityMap = authorityMap
        }
    }

    /// `client_id`, as given: it is also the service attribute, unnormalized.
    public var clientId: String
    /// `principal_home_account_id`.
    public var principalHomeAccountId: String?
    /// `principal_username`.
    public var principalUsername: String?
    /// `principal_account_environment`.
    public var principalAccountEnvironment: String?
    /// `account_metadata_map`, keyed by home account id.
    public var accounts: [String: Entry]

    /// Creates the metadata of `clientId`.
    public init(
        clientId: String,
        principalHomeAccountId: String? = nil,
        principalUsername: String? = nil,
        principalAccountEnvironment: String? = nil,
        accounts: [String: Entry] = [:]
    ) {
        self.clientId = clientId
        self.principalHomeAccountId = principalHomeAccountId
        self.principalUsername = principalUsername
        self.principalAccountEnvironment = principalAccountEnvironment
        self.accounts = accounts
    }

    /// Sets an account's sign-in state, creating its entry if needed. Signing out clears the
    /// account's URL maps, as `updateSignInState:` does.
    public mutating func setSignInState(_ state: SignInState, homeAccountId: String) {
        var entry = accounts[homeAccountId] ?? Entry(clientId: clientId, homeAccountId: homeAccountId, signInState: state)
        entry.setSignInState(state)
        accounts[homeAccountId] = entry
    }

    /// Records that a request for `requestAuthority` was served by `resolvedAuthority`, and marks the
    /// account signed in (as `setCachedURL:` does). A mapping to itself is not recorded (and removes
    /// an earlier one).
    public mutating func setAuthority(_ resolvedAuthority: String, for requestAuthority: String, homeAccountId: String, instanceAware: Bool = false) {
        var entry = accounts[homeAccountId] ?? Entry(clientId: clientId, homeAccountId: homeAccountId)
        entry.signInState = .signedIn
        let mapKey = instanceAware ? Self.instanceAwareURLMapKey : Self.urlMapKey
        var map = entry.authorityMap[mapKey] ?? [:]
        map[requestAuthority] = requestAuthority == resolvedAuthority ? nil : resolvedAuthority
        entry.authorityMap[mapKey] = map.isEmpty ? nil : map
        accounts[homeAccountId] = entry
    }

    // MARK: - JSON

    /// Reads a payload object; unknown members are dropped.
    ///
    /// - Throws: ``SchemaError/missingField(_:item:)`` without `client_id`;
    ///   ``SchemaError/invalidField(_:reason:item:)`` when a map is not shaped as the schema says.
    public init(jsonObject: JSONObject) throws(SchemaError) {
        var fields = PayloadFields(jsonObject)
        guard let clientId = try fields.string(Field.clientId) else { throw .missingField(Field.clientId, item: nil) }
        self.init(clientId: clientId)
        principalHomeAccountId = try fields.string(Field.principalHomeAccountId)
        principalUsername = try fields.string(Field.principalUsername)
        principalAccountEnvironment = try fields.string(Field.principalAccountEnvironment)
        let map = try fields.object(Field.accountMetadataMap) ?? JSONObject()
        // The map holds an entry per account the client signed in: paths for errors are made only
        // when one is thrown.
        accounts.reserveCapacity(map.count)
        for (homeAccountId, value) in map {
            guard case .object(let entryObject) = value else {
                throw .invalidField(Self.path(homeAccountId), reason: "must be a JSON object, found \(value.kindWithArticle)", item: nil)
            }
            accounts[homeAccountId] = try Self.entry(entryObject, homeAccountId: homeAccountId)
        }
    }

    /// Where an account's entry is, for errors: `account_metadata_map.<homeAccountId>`.
    private static func path(_ homeAccountId: String) -> String { "\(Field.accountMetadataMap).\(homeAccountId)" }

    /// Reads one entry of `account_metadata_map` (`homeAccountId`: its map key, used when it has no
    /// `home_account_id`); `prefix` is where it sits, for errors.
    static func entry(_ object: JSONObject, homeAccountId: String, prefix: String? = nil) throws(SchemaError) -> Entry {
        let path = prefix ?? Self.path(homeAccountId)
        var fields = PayloadFields(object)
        let clientId = try fields.string(Field.clientId)
        let storedHomeAccountId = try fields.string(Field.homeAccountId)
        let state = try fields.string(Field.signInState).flatMap(SignInState.init(rawValue:)) ?? .unknown
        var map: [String: [String: String]] = [:]
        for (mapKey, value) in try fields.object(Field.authorityMap) ?? JSONObject() {
            func mapPath() -> String { "\(path.isEmpty ? "" : path + ".")\(Field.authorityMap).\(mapKey)" }
            guard case .object(let urls) = value else {
                throw .invalidField(mapPath(), reason: "must be a JSON object of URL strings, found \(value.kindWithArticle)", item: nil)
            }
            var urlMap: [String: String] = [:]
            for (request, resolved) in urls {
                guard case .string(let resolvedURL) = resolved else {
                    throw .invalidField(mapPath(), reason: "must map URLs to URL strings, found \(resolved.kindWithArticle)", item: nil)
                }
                urlMap[request] = resolvedURL
            }
            map[mapKey] = urlMap
        }
        return Entry(clientId: clientId, homeAccountId: storedHomeAccountId ?? homeAccountId, signInState: state, authorityMap: map)
    }

    public static func isStored(asType type: UInt32?) -> Bool { type == ItemTypeCode.accountMetadata }
    public static let storedKind = "account metadata (type 5001)"

    /// The payload object, rebuilt from the fields.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        object.set(Field.clientId, clientId)
        object.set(Field.principalHomeAccountId, principalHomeAccountId)
        object.set(Field.principalUsername, principalUsername)
        object.set(Field.principalAccountEnvironment, principalAccountEnvironment)
        var map = JSONObject()
        for (homeAccountId, entry) in accounts {
            map[homeAccountId] = .object(entry.jsonObject)
        }
        object[Field.accountMetadataMap] = .object(map)
        return object
    }

    /// The keychain attributes: account `authority_map`, service = ``clientId`` as given (not
    /// normalized), no generic, type 5001.
    public var key: ItemKey {
        ItemKey(account: Self.keyAccount, service: clientId, generic: nil, type: ItemTypeCode.accountMetadata)
    }
}
