import CacheStore
import Foundation
import Synchronization
@_spi(Indexing) import TokenCacheSchema

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

/// Answers the index has already computed for account listings: built on first request, dropped
/// whenever the index changes (every mutation gives the index a new memo).
final class AccountMemo: Sendable {
    struct Key: Hashable, Sendable {
        let homeAccountId: String
        let clientId: String?
        let environment: String?
    }

    struct ListingKey: Hashable, Sendable {
        let clientId: String?
        let environment: String?
    }

    let homeOrder = StateLock<[String]?>(nil)
    let accounts = StateLock<[Key: CachedAccount?]>([:])
    let listings = StateLock<[ListingKey: [CachedAccount]]>([:])

    /// `compute()` the first time the listing for `key` is asked for, the remembered one afterwards.
    func listing(_ key: ListingKey, _ compute: () throws -> [CachedAccount]) rethrows -> [CachedAccount] {
        try Self.remember(key, in: listings, compute)
    }

    /// `compute()` the first time `key` is asked for, the remembered answer afterwards.
    func account(_ key: Key, _ compute: () -> CachedAccount?) -> CachedAccount? {
        Self.remember(key, in: accounts, compute)
    }

    // Inlined: left generic, it made every account lookup take 348 ns instead of 194.
    @inline(__always)
    private static func remember<Key: Hashable & Sendable, Value: Sendable>(
        _ key: Key, in table: borrowing StateLock<[Key: Value]>, _ compute: () throws -> Value
    ) rethrows -> Value {
        if let known = table.withLock({ $0[key] }) { return known }
        let value = try compute()
        table.withLock { $0[key] = value }
        return value
    }
}

/// Something the index keeps in lists that follow the store's order.
///
/// Entries are classes: lookups walk lists of them, and copying a reference is one retain where
/// copying a decoded credential would be dozens.
protocol Sequenced: AnyObject {
    var identity: ItemIdentity { get }
    var sequence: Int { get }
}

/// A credential as the index holds it: the normalized fields lookups compare, read once, with the
/// full credential behind a ``CredentialBox`` that decodes it on first use.
final class IndexedCredential: Sendable, Sequenced {
    let box: CredentialBox
    /// Where the item is stored (its own attributes, which may differ from the key it would get today).
    var identity: ItemIdentity { box.identity }
    let credentialType: CredentialType
    let homeAccountId: String
    let environment: String
    let clientId: String
    /// Empty when the credential is not a family token.
    let familyId: String
    let realm: String
    /// Access tokens only.
    let scopes: ScopeSet
    /// `bearer` when the item names none.
    let tokenType: String
    /// Normalized; empty when the item names none.
    let keyId: String
    /// As stored; `nil` when absent or blank (blank claims match no claims).
    let requestedClaims: String?
    /// Normalized; empty when the item names none.
    let applicationIdentifier: String
    let expiresOn: Int64?
    let cachedAt: Int64?
    let refreshOn: Int64?
    /// ID tokens only: the claims, parsed the first time they are asked for (listing accounts), not
    /// while the index is built (opening a cache).
    let lazyClaims: LazyClaims?

    /// The full credential (decoded on first use).
    var credential: Credential { box.credential }
    var claims: JSONObject? { lazyClaims?.value }
    /// Position in the store's order (first added first); a replaced item keeps its position.
    let sequence: Int

    var accessTokenKey: CacheIndex.AccessTokenKey {
        CacheIndex.AccessTokenKey(homeAccountId: homeAccountId, clientId: clientId, realm: realm)
    }

    /// An entry for `credential`, whose full content is in `box` (`credential` may be a partial read
    /// of it: only the fields compared here are used).
    init(_ credential: Credential, box: CredentialBox, sequence: Int = 0) {
        self.sequence = sequence
        self.box = box
        credentialType = credential.credentialType
        homeAccountId = norm(credential.homeAccountId ?? "")
        environment = norm(credential.environment ?? "")
        clientId = norm(credential.clientId ?? "")
        familyId = norm(credential.familyId ?? "")
        realm = norm(credential.realm ?? "")
        scopes = ScopeSet(credential.target ?? "")
        tokenType = norm(credential.tokenType ?? "bearer")
        keyId = norm(credential.keyId ?? "")
        requestedClaims = credential.requestedClaims.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        applicationIdentifier = norm(credential.applicationIdentifier ?? "")
        expiresOn = credential.expiresOn
        cachedAt = credential.cachedAt
        refreshOn = credential.refreshOn
        switch credential.credentialType {
        case .idToken, .v1IdToken: lazyClaims = LazyClaims(box)
        default: lazyClaims = nil
        }
    }

    /// An entry for a credential in hand (one being saved).
    convenience init(_ credential: Credential, identity: ItemIdentity, sequence: Int = 0) {
        self.init(credential, box: CredentialBox(credential, identity: identity), sequence: sequence)
    }
}

final class IndexedAccount: Sendable, Sequenced {
    let account: Account
    let identity: ItemIdentity
    let homeAccountId: String
    let environment: String
    let realm: String
    /// Normalized.
    let username: String?
    let sequence: Int

    init(_ account: Account, identity: ItemIdentity, sequence: Int = 0) {
        self.sequence = sequence
        self.account = account
        self.identity = identity
        homeAccountId = norm(account.homeAccountId ?? "")
        environment = norm(account.environment ?? "")
        realm = norm(account.realm ?? "")
        username = account.username.map(norm)
    }
}

/// A legacy ADAL token entry as the index holds it.
final class IndexedLegacyToken: Sendable, Sequenced {
    let item: LegacyTokenCacheItem
    let identity: ItemIdentity
    /// The user the entry is stored for: the account attribute decoded, else the ID token's
    /// displayable id; normalized; empty when unknown.
    let userId: String
    /// The authority's host (lower-cased, with a port other than 443).
    let environment: String
    /// The authority's tenant path segment (`common`, a tenant id, …), lower-cased.
    let authorityTenant: String
    /// Normalized; empty when the entry does not say (ADAL before IdentityCore).
    let homeAccountId: String
    let claims: JSONObject?
    let sequence: Int

    init(_ item: LegacyTokenCacheItem, identity: ItemIdentity, sequence: Int = 0) {
        self.sequence = sequence
        self.item = item
        self.identity = identity
        userId = norm(LegacyCacheKey.userId(ofAccount: identity.account) ?? item.userId ?? "")
        let authority = URLComponents(string: item.authority)
        var host = authority?.host?.lowercased() ?? ""
        if let port = authority?.port, port != 443 { host += ":\(port)" }
        environment = host
        authorityTenant = authority?.path.split(separator: "/").first.map { $0.lowercased() } ?? ""
        homeAccountId = norm(item.homeAccountId ?? "")
        claims = item.idTokenClaims
    }

    /// Whether the entry can refresh: a multi-resource, family or single-resource refresh token.
    var hasRefreshToken: Bool { item.kind != .accessToken }
}

final class IndexedAppMetadata: Sendable, Sequenced {
    let metadata: AppMetadata
    let identity: ItemIdentity
    let clientId: String
    let environment: String
    /// Normalized; empty when the app is in no family.
    let familyId: String
    let sequence: Int

    init(_ metadata: AppMetadata, identity: ItemIdentity, sequence: Int = 0) {
        self.sequence = sequence
        self.metadata = metadata
        self.identity = identity
        clientId = norm(metadata.clientId ?? "")
        environment = norm(metadata.environment ?? "")
        familyId = norm(metadata.familyId ?? "")
    }
}

/// The decoded content of the store at one change stamp, arranged for the lookups the engine makes.
///
/// Built in one pass over every item, then kept current by applying the engine's own batches
/// (``apply(_:)``) so that a save does not force a re-read of the whole store.
struct CacheIndex: Sendable {
    struct AccessTokenKey: Hashable, Sendable {
        let homeAccountId: String
        let clientId: String
        let realm: String
    }

    /// What one stored item contributed, so it can be taken out again.
    private enum Entry: Sendable {
        case credential(IndexedCredential)
        case account(IndexedAccount)
        case appMetadata(IndexedAppMetadata)
        case accountMetadata(AccountMetadata)
        case legacyToken(IndexedLegacyToken)
        case tombstone
        case unreadable(SchemaError)
        case other
    }

    /// Access tokens (2001, 2007) by home account, client and realm.
    private(set) var accessTokens: [AccessTokenKey: [IndexedCredential]] = [:]
    /// Refresh, family refresh and bound refresh tokens (2002, 2008, 2009) by home account.
    private(set) var refreshTokens: [String: [IndexedCredential]] = [:]
    /// ID tokens (2003, 2006) by home account.
    private(set) var idTokens: [String: [IndexedCredential]] = [:]
    /// Every credential by home account, whatever its kind (removal walks these).
    private(set) var credentialsByHomeAccount: [String: [IndexedCredential]] = [:]
    /// Account records by normalized home account id.
    private(set) var accountsByHomeAccount: [String: [IndexedAccount]] = [:]
    /// Account records by normalized username.
    private(set) var accountsByUsername: [String: [IndexedAccount]] = [:]
    /// App metadata by normalized client id.
    private(set) var appMetadata: [String: [IndexedAppMetadata]] = [:]
    /// Account metadata (the authority map) by client id as stored, with where it is stored.
    private(set) var accountMetadata: [String: (metadata: AccountMetadata, identity: ItemIdentity)] = [:]
    /// Legacy ADAL tokens by normalized user id (the displayable id their account attribute encodes).
    private(set) var legacyTokensByUser: [String: [IndexedLegacyToken]] = [:]
    /// Tombstoned credentials: to be deleted, never returned.
    private(set) var tombstones: Set<ItemIdentity> = []
    /// Unified items whose payload could not be read; they are skipped, as MSAL skips them.
    private(set) var unreadable: [ItemIdentity: SchemaError] = [:]

    /// An identity with its hash computed beforehand: opening a cache computes it on the decoding
    /// cores, so the serial index builder only combines one number per item.
    struct IdentityKey: Hashable, Sendable {
        let identity: ItemIdentity
        let hash: Int

        init(_ identity: ItemIdentity) {
            self.identity = identity
            hash = identity.hashValue
        }

        static func == (lhs: IdentityKey, rhs: IdentityKey) -> Bool { lhs.hash == rhs.hash && lhs.identity == rhs.identity }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    /// Every indexed item's attributes, position and contribution, by identity.
    private var entries: [IdentityKey: (item: StoreItem, sequence: Int, entry: Entry)] = [:]
    private var nextSequence = 0

    /// How many items the index holds.
    var itemCount: Int { entries.count }

    /// Indexes `items`, in this order; large inputs are decoded on every core.
    init(items: [StoreItem]) {
        entries.reserveCapacity(items.count)
        for (position, (item, entry)) in zip(items, Self.decodeConcurrently(items)).enumerated() {
            add(item, key: IdentityKey(item.identity), sequence: position, entry: entry)
        }
        nextSequence = items.count
    }

    private static func decodeConcurrently(_ items: [StoreItem]) -> [Entry] {
        let chunk = 256
        guard items.count > chunk else {
            return items.enumerated().map { entry(for: $1, identity: $1.identity, sequence: $0) }
        }
        var results = [Entry](repeating: .other, count: items.count)
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let output = buffer
            DispatchQueue.concurrentPerform(iterations: (items.count + chunk - 1) / chunk) { part in
                // Each iteration writes its own disjoint range of the buffer.
                for index in (part * chunk)..<min(items.count, (part + 1) * chunk) {
                    output[index] = entry(for: items[index], identity: items[index].identity, sequence: index)
                }
            }
        }
        return results
    }

    /// Reads `store` and indexes its items: three stages that overlap, so opening a cache costs
    /// little more than the longest of them. The calling thread reads the store (serially: one
    /// consistent read) and hands over chunks of items; other cores decode each chunk (JSON, keyed
    /// archives); one serial builder adds the decoded chunks to the index in the store's order.
    static func read(from store: any ItemStore) throws -> CacheIndex {
        let chunkSize = 256
        let decoding = DispatchGroup()
        let builder = Builder()
        var chunks = 0
        var count = 0
        try store.readAllItems(chunkSize: chunkSize) { chunk in
            // Numbered as received: a store may hand over chunks shorter than asked for.
            let number = chunks
            let base = count
            chunks += 1
            count += chunk.count
            DispatchQueue.global().async(group: decoding) {
                var keys: [IdentityKey] = []
                keys.reserveCapacity(chunk.count)
                let entries = chunk.enumerated().map { position, item in
                    let identity = item.identity
                    keys.append(IdentityKey(identity))
                    return entry(for: item, identity: identity, sequence: base + position)
                }
                builder.deliver(number, items: chunk, keys: keys, entries: entries)
            }
        }
        decoding.wait()
        return builder.finish()
    }

    /// The last stage of ``read(from:)``: receives decoded chunks in any order and adds them to an
    /// index in chunk order, on its own serial queue.
    private final class Builder: @unchecked Sendable {
        // `index`, `ready` and `next` are only touched on `queue` (and by `finish` after `sync`).
        private let queue = DispatchQueue(label: "tokencache.index-builder")
        private var index = CacheIndex(items: [])
        private var ready: [Int: (items: [StoreItem], keys: [IdentityKey], entries: [Entry])] = [:]
        private var next = 0

        func deliver(_ number: Int, items: [StoreItem], keys: [IdentityKey], entries: [Entry]) {
            queue.async {
                self.ready[number] = (items, keys, entries)
                while let chunk = self.ready.removeValue(forKey: self.next) {
                    for position in chunk.items.indices {
                        // A store holds each identity once, so no entry is replaced, and the
                        // (fresh) memo is kept.
                        self.index.add(
                            chunk.items[position], key: chunk.keys[position], sequence: self.index.nextSequence,
                            entry: chunk.entries[position])
                        self.index.nextSequence += 1
                    }
                    self.next += 1
                }
            }
        }

        /// The index, once every chunk was delivered.
        func finish() -> CacheIndex {
            queue.sync { index }
        }
    }

    /// The home accounts with a record of this normalized username, each once, in record order;
    /// computed as it is walked (no array is built).
    func homeAccountIds(withUsername username: String) -> some Sequence<String> {
        let records = accountsByUsername[username] ?? []
        return records.indices.lazy
            .filter { position in !records[..<position].contains { $0.homeAccountId == records[position].homeAccountId } }
            .map { records[$0].homeAccountId }
    }

    /// The stored accounts of one home account.
    func accounts(homeAccountId: String) -> [IndexedAccount] {
        accountsByHomeAccount[homeAccountId] ?? []
    }

    /// Remembered account listings; replaced by every change to the index.
    private(set) var memo = AccountMemo()

    /// Home account ids in the store's order of their first account record.
    var homeAccountOrder: [String] {
        if let order = memo.homeOrder.withLock({ $0 }) { return order }
        let order = accountsByHomeAccount.sorted { $0.value[0].sequence < $1.value[0].sequence }.map(\.key)
        memo.homeOrder.withLock { $0 = order }
        return order
    }

    /// Applies a batch the engine committed, in order, exactly as the store applied it.
    mutating func apply(_ batch: [StoreOperation]) {
        for operation in batch {
            switch operation {
            case .save(let item):
                insert(item)
            case .delete(let query):
                if let identity = query.identity {
                    remove(identity)
                } else {
                    for (key, stored) in entries where query.matches(stored.item) { remove(key.identity) }
                }
            }
        }
    }

    /// Adds `item`, replacing what the same identity held. A replaced item keeps its position, as
    /// in the store.
    mutating func insert(_ item: StoreItem) {
        insert(item, decoded: nil)
    }

    /// Adds `item` with its entry when already decoded (in store order, so the entry's sequence is
    /// the position it was decoded for).
    private mutating func insert(_ item: StoreItem, decoded: Entry?) {
        memo = AccountMemo()
        let identity = item.identity
        let sequence: Int
        if let existing = entries[IdentityKey(identity)] {
            sequence = existing.sequence
            remove(identity)
        } else {
            sequence = nextSequence
            nextSequence += 1
        }
        add(item, key: IdentityKey(identity), sequence: sequence, entry: decoded ?? Self.entry(for: item, identity: identity, sequence: sequence))
    }

    /// Records `entry` for `item` at `sequence` and places it in the lookup maps.
    private mutating func add(_ item: StoreItem, key: IdentityKey, sequence: Int, entry: Entry) {
        let identity = key.identity
        // The payload is not kept: entries hold attributes for query matching only.
        var attributes = item
        attributes.data = Data()
        if let replaced = entries.updateValue((attributes, sequence, entry), forKey: key) {
            // Only reached if a store returned an identity twice: the later item wins, as in insert.
            entries[key] = replaced
            remove(identity)
            entries[key] = (attributes, sequence, entry)
        }
        func place<Key: Hashable, Value: Sequenced>(_ value: Value, in map: inout [Key: [Value]], at key: Key) {
            // One hash of the key: the list is changed in place.
            insert(value, into: &map[key, default: []])
        }
        func insert<Value: Sequenced>(_ value: Value, into list: inout [Value]) {
            if let last = list.last, last.sequence > value.sequence {
                list.insert(value, at: list.lastIndex { $0.sequence < value.sequence }.map { $0 + 1 } ?? 0)
            } else {
                list.append(value)
            }
        }
        switch entry {
        case .credential(let credential):
            place(credential, in: &credentialsByHomeAccount, at: credential.homeAccountId)
            switch credential.credentialType {
            case .accessToken, .accessTokenWithAuthScheme:
                place(credential, in: &accessTokens, at: credential.accessTokenKey)
            case .refreshToken, .familyRefreshToken, .boundRefreshToken:
                place(credential, in: &refreshTokens, at: credential.homeAccountId)
            case .idToken, .v1IdToken:
                place(credential, in: &idTokens, at: credential.homeAccountId)
            default:
                break
            }
        case .account(let account):
            place(account, in: &accountsByHomeAccount, at: account.homeAccountId)
            if let username = account.username { place(account, in: &accountsByUsername, at: username) }
        case .appMetadata(let metadata):
            place(metadata, in: &appMetadata, at: metadata.clientId)
        case .accountMetadata(let metadata):
            accountMetadata[metadata.clientId] = (metadata, identity)
        case .legacyToken(let token):
            place(token, in: &legacyTokensByUser, at: token.userId)
        case .tombstone:
            tombstones.insert(identity)
        case .unreadable(let error):
            unreadable[identity] = error
        case .other:
            break
        }
    }

    /// Takes out whatever `identity` contributed.
    mutating func remove(_ identity: ItemIdentity) {
        guard let (_, _, entry) = entries.removeValue(forKey: IdentityKey(identity)) else { return }
        memo = AccountMemo()
        func drop<Key: Hashable, Value>(_ map: inout [Key: [Value]], _ key: Key, where matches: (Value) -> Bool) {
            guard var list = map[key] else { return }
            list.removeAll(where: matches)
            map[key] = list.isEmpty ? nil : list
        }
        switch entry {
        case .credential(let credential):
            drop(&credentialsByHomeAccount, credential.homeAccountId) { $0.identity == identity }
            drop(&accessTokens, credential.accessTokenKey) { $0.identity == identity }
            drop(&refreshTokens, credential.homeAccountId) { $0.identity == identity }
            drop(&idTokens, credential.homeAccountId) { $0.identity == identity }
        case .account(let account):
            drop(&accountsByHomeAccount, account.homeAccountId) { $0.identity == identity }
            if let username = account.username { drop(&accountsByUsername, username) { $0.identity == identity } }
        case .appMetadata(let metadata):
            drop(&appMetadata, metadata.clientId) { $0.identity == identity }
        case .accountMetadata(let metadata):
            if accountMetadata[metadata.clientId]?.identity == identity { accountMetadata[metadata.clientId] = nil }
        case .legacyToken(let token):
            drop(&legacyTokensByUser, token.userId) { $0.identity == identity }
        case .tombstone:
            tombstones.remove(identity)
        case .unreadable:
            unreadable[identity] = nil
        case .other:
            break
        }
    }

    private static func entry(for item: StoreItem, identity: ItemIdentity, sequence: Int) -> Entry {
        if let type = item.type, CredentialType(typeCode: type) != nil {
            // Credentials are most of a cache and are read partially here: the full read waits for
            // a lookup that returns one (CredentialBox).
            let credential: Credential
            let box: CredentialBox
            do {
                credential = try Credential(indexing: item)
                box = CredentialBox(stored: item)
            } catch {
                // The full read names the problem exactly (the partial one may have met a placeholder).
                do {
                    credential = try Credential(storeItem: item)
                    box = CredentialBox(credential, identity: identity)
                } catch {
                    return .unreadable(error)
                }
            }
            if credential.isTombstone { return .tombstone }
            return .credential(IndexedCredential(credential, box: box, sequence: sequence))
        }
        let decoded: UnifiedItem
        do {
            decoded = try UnifiedItem(item)
        } catch {
            return .unreadable(error)
        }
        switch decoded {
        case .credential(let credential):
            if credential.isTombstone { return .tombstone }
            return .credential(IndexedCredential(credential, identity: identity, sequence: sequence))
        case .account(let account):
            return .account(IndexedAccount(account, identity: identity, sequence: sequence))
        case .appMetadata(let metadata):
            return .appMetadata(IndexedAppMetadata(metadata, identity: identity, sequence: sequence))
        case .accountMetadata(let metadata):
            return .accountMetadata(metadata)
        case .other(.legacyADAL):
            let legacy: LegacyTokenCacheItem
            do {
                legacy = try LegacyTokenCacheItem(archive: item.data)
            } catch {
                return .unreadable(error.attaching(ItemReference(item)))
            }
            // ADAL 2.x and IdentityCore delete tombstoned entries when they meet them.
            if legacy.isTombstone { return .tombstone }
            return .legacyToken(IndexedLegacyToken(legacy, identity: identity, sequence: sequence))
        case .other:
            return .other
        }
    }
}
