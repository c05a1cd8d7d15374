import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Synchronization
@_spi(Indexing) import TokenCacheSchema

/// The decoded content of the store at one change stamp, arranged for the lookups the engine makes.
///
/// Built in one pass over every item, then kept current by applying the engine's own batches
/// (``apply(_:)``) so that a save does not force a re-read of the whole store.
struct CacheIndex: Sendable {
    /// What one stored item contributed, so it can be taken out again.
    ///
    /// One reference wide: the rare large payloads are boxed (`indirect`), so that every slot of the
    /// identity map and of a decoded chunk is small.
    enum Entry: Sendable {
        case credential(IndexedCredential)
        case account(IndexedAccount)
        case appMetadata(IndexedAppMetadata)
        indirect case accountMetadata(AccountMetadata)
        case accountSignIn(IndexedAccountSignIn)
        case legacyToken(IndexedLegacyToken)
        case tombstone
        indirect case unreadable(SchemaError)
        case other
    }

    /// Access tokens (2001, 2007) by home account, client and realm.
    private(set) var accessTokens: [AccessTokenKey: [IndexedCredential]] = [:]
    /// Refresh, family refresh and bound refresh tokens (2002, 2008, 2009) by home account.
    private(set) var refreshTokens = DigestedMap<[IndexedCredential]>()
    /// ID tokens (2003, 2006) by home account.
    private(set) var idTokens = DigestedMap<[IndexedCredential]>()
    /// Every credential by home account, whatever its kind (removal walks these).
    private(set) var credentialsByHomeAccount = DigestedMap<[IndexedCredential]>()
    /// Account records by normalized home account id.
    private(set) var accountsByHomeAccount = DigestedMap<[IndexedAccount]>()
    /// Account records by normalized username.
    private(set) var accountsByUsername = DigestedMap<[IndexedAccount]>()
    /// App metadata by normalized client id.
    private(set) var appMetadata: [String: [IndexedAppMetadata]] = [:]
    /// Account metadata (the authority map) by client id as stored, with where it is stored.
    private(set) var accountMetadata: [String: (metadata: AccountMetadata, identity: ItemIdentity)] = [:]
    /// Each account's own sign-in items (``AccountSignIn``), by client id as stored and normalized
    /// home account id; they override the entries of ``accountMetadata``.
    private(set) var accountSignIns: [SignInKey: [IndexedAccountSignIn]] = [:]
    /// Legacy ADAL tokens by normalized user id (the displayable id their account attribute encodes).
    private(set) var legacyTokensByUser: [String: [IndexedLegacyToken]] = [:]
    /// Tombstoned credentials: to be deleted, never returned.
    private(set) var tombstones: Set<ItemIdentity> = []
    /// Unified items whose payload could not be read; they are skipped, as MSAL skips them.
    private(set) var unreadable: [ItemIdentity: SchemaError] = [:]

    /// An identity with its hash computed beforehand: opening a cache computes it on the decoding
    /// cores, so the serial index builder only combines one number per item.
    struct IdentityKey: DigestHashable, Sendable {
        let identity: ItemIdentity
        /// Of the identity's bytes, made once: an item's attributes run to 300 bytes, which `Hasher`
        /// took 1,800 instructions to hash (see ``KeyDigest``).
        let digest: KeyDigest

        init(_ identity: ItemIdentity) {
            self.identity = identity
            var digest = KeyDigest()
            digest.add(identity.accessGroup)
            digest.add(identity.account)
            digest.add(identity.service)
            // An absent type apart from every number.
            digest.add(word: identity.type.map(UInt64.init) ?? 1 << 32)
            self.digest = digest
        }

        static func == (lhs: IdentityKey, rhs: IdentityKey) -> Bool { lhs.digest == rhs.digest && lhs.identity == rhs.identity }
    }

    /// What the index keeps of one stored item besides its identity (the key it is filed under):
    /// the attributes a query can match, its position and its contribution. Kept small: a cache of
    /// 100,000 items has a slot like this for each, and every open fills them.
    struct Stored: Sendable {
        var generic: Data?
        /// When the store recorded it; `nil` when it records none (and for the engine's own writes).
        var created: Date?
        var sequence: Int
        var entry: Entry

        init(_ item: StoreItem, sequence: Int, entry: Entry) {
            generic = item.generic
            created = item.created
            self.sequence = sequence
            self.entry = entry
        }

        /// The item's attributes (no payload), as query matching needs them.
        func attributes(_ key: IdentityKey) -> StoreItem {
            let identity = key.identity
            return StoreItem(
                accessGroup: identity.accessGroup, account: identity.account, service: identity.service, generic: generic,
                type: identity.type, data: Data(), created: created)
        }
    }

    /// Every indexed item, by identity.
    var entries: [IdentityKey: Stored] = [:]
    var nextSequence = 0
    /// The identities of each partition, built on the first partition replacement (see
    /// `CacheIndex+Partitions.swift`) and kept by `add` and `remove` from then on.
    var partitionMembers: PartitionMembers?

    /// Access tokens read but not decoded yet, by normalized home account id, a box per account
    /// attribute (see ``DeferredAccessTokens``); not in ``entries`` or the lookup maps until absorbed.
    var deferred = DigestedMap<[DeferredAccessTokens]>()
    /// The home account of each deferred box's normalized account attribute.
    var deferredHomes = DigestedMap<String>()
    /// Home accounts whose deferred access tokens a call read (from this index or a copy).
    let deferredUse = NotedHomes()
    /// How many items ``deferred`` holds.
    var deferredCount = 0
    /// The access tokens left in the store when the index was read, `nil` when it holds them all
    /// (see ``UnreadAccessTokens``).
    var unread: UnreadAccessTokens?
    /// Where the calls on this index note the access tokens they found unread (while ``unread`` is
    /// not `nil`). Replaced, for a copy of the index that runs outside the engine's lock (a plan),
    /// so that two calls never share one.
    var accessTokenMisses: NotedHomes?

    /// How many items the index holds.
    var itemCount: Int { entries.count + deferredCount }

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

    /// The home accounts with a record of `username` (as given: compared normalized), each once, in
    /// record order; computed as it is walked (no array is built).
    func homeAccountIds(withUsername username: String) -> some Sequence<String> {
        let records = accountsByUsername[normalizing: username] ?? []
        return records.indices.lazy
            .filter { position in !records[..<position].contains { $0.homeAccountId == records[position].homeAccountId } }
            .map { records[$0].homeAccountId }
    }

    /// The stored accounts of one home account.
    func accounts(homeAccountId: String) -> [IndexedAccount] {
        accountsByHomeAccount[homeAccountId] ?? []
    }

    /// Remembered account listings; replaced by every change to the index.
    var memo = AccountMemo()

    /// Home account ids in the store's order of their first account record.
    var homeAccountOrder: [String] {
        memo.homeOrder { accountsByHomeAccount.sorted { $0.value[0].sequence < $1.value[0].sequence }.map(\.key) }
    }

    /// The MSAL entries legacy ADAL entries stand for, built once per index state.
    var legacyProjections: LegacyProjections {
        if let known = memo.legacyProjections.withLock({ $0 }) { return known }
        let built = LegacyProjections(index: self)
        memo.legacyProjections.withLock { $0 = built }
        return built
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
                    if let account = query.account { absorbDeferred(account: account) } else { absorbAllDeferred() }
                    for (key, stored) in entries where query.matches(stored.attributes(key)) { remove(key.identity) }
                }
            case .setLookupKeys, .declareLookupKeysComplete:
                break
            }
        }
    }

    /// Whether `item`, the record `metadata` as it would be written, is stored as is: the same
    /// record under the same identity and generic. Saves leave such a record alone: every client's
    /// app metadata shares one partition per cloud, which rewriting it on every save (as MSAL does)
    /// would move to a new revision each time, for every other engine to read again.
    func stores(_ metadata: AppMetadata, as item: StoreItem) -> Bool {
        guard let clientId = metadata.clientId else { return false }
        return appMetadata[ItemKey.normalized(clientId)]?.contains {
            $0.identity == item.identity && $0.metadata == metadata
                && entries[IdentityKey($0.identity)]?.generic == item.generic
        } == true
    }

    /// Adds `item`, replacing what the same identity held. A replaced item keeps its position, as
    /// in the store.
    mutating func insert(_ item: StoreItem) {
        insert(item, decoded: nil)
    }

    /// Adds `item` with its entry when already decoded (in store order, so the entry's sequence is
    /// the position it was decoded for).
    private mutating func insert(_ item: StoreItem, decoded: Entry?) {
        let identity = item.identity
        absorbDeferred(account: identity.account)
        let key = IdentityKey(identity)
        let existing = entries[key]
        let sequence = existing?.sequence ?? nextSequence
        let entry = decoded ?? Self.entry(for: item, identity: identity, sequence: sequence)
        // An access token of a home not read yet comes with its home's read (what the identity
        // held before, now replaced by it, goes).
        if let unread, unread.excludes(item, entry: entry) {
            if existing != nil { remove(identity) }
            return
        }
        if existing == nil { nextSequence += 1 }
        let probe = accountProbe(of: existing.map { [$0.entry, entry] } ?? [entry])
        if existing != nil { removeEntry(identity) }
        add(item, key: key, sequence: sequence, entry: entry)
        noteAccountChanges(probe)
    }

    /// Records `entry` for `item` at `sequence` and places it in the lookup maps.
    mutating func add(_ item: StoreItem, key: IdentityKey, sequence: Int, entry: Entry) {
        let identity = key.identity
        absorbDeferred(before: entry)
        // The payload is not kept: entries hold attributes for query matching only.
        let stored = Stored(item, sequence: sequence, entry: entry)
        if let replaced = entries.updateValue(stored, forKey: key) {
            // Only reached if a store returned an identity twice: the later item wins, as in insert.
            entries[key] = replaced
            remove(identity)
            entries[key] = stored
        }
        partitionMembers?.insert(key)
        place(entry) { identity }
    }

    /// The map by kind a credential is filed in besides `credentialsByHomeAccount`: one answer for
    /// `place` and `removeEntry`, so that removal finds what placing filed.
    enum CredentialMap {
        case accessTokens, refreshTokens, idTokens, none

        init(_ type: CredentialType) {
            switch type {
            case .accessToken, .accessTokenWithAuthScheme: self = .accessTokens
            case .refreshToken, .familyRefreshToken, .boundRefreshToken: self = .refreshTokens
            case .idToken, .v1IdToken: self = .idTokens
            default: self = .none
            }
        }
    }

    /// Places what an item contributes in the lookup maps (`identity` is only asked for by the kinds
    /// filed by identity).
    mutating func place(_ entry: Entry, identity: () -> ItemIdentity) {
        func place<Key: Hashable, Value: Sequenced>(_ value: Value, in map: inout [Key: [Value]], at key: Key) {
            // One hash of the key: the list is changed in place.
            insert(value, into: &map[key, default: []])
        }
        func place<Value: Sequenced>(_ value: Value, in map: inout DigestedMap<[Value]>, at key: String) {
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
            switch CredentialMap(credential.credentialType) {
            case .accessTokens:
                place(credential, in: &accessTokens, at: credential.accessTokenKey)
                if unread != nil { unread!.noteFiled(home: credential.homeAccountId) }
            case .refreshTokens: place(credential, in: &refreshTokens, at: credential.homeAccountId)
            case .idTokens: place(credential, in: &idTokens, at: credential.homeAccountId)
            case .none: break
            }
        case .account(let account):
            place(account, in: &accountsByHomeAccount, at: account.homeAccountId)
            if let username = account.username { place(account, in: &accountsByUsername, at: username) }
        case .appMetadata(let metadata):
            place(metadata, in: &appMetadata, at: metadata.clientId)
        case .accountMetadata(let metadata):
            accountMetadata[metadata.clientId] = (metadata, identity())
        case .accountSignIn(let signIn):
            place(signIn, in: &accountSignIns, at: SignInKey(clientId: signIn.signIn.clientId, home: signIn.signIn.homeAccountKey))
        case .legacyToken(let token):
            place(token, in: &legacyTokensByUser, at: token.userId)
        case .tombstone:
            tombstones.insert(identity())
        case .unreadable(let error):
            unreadable[identity()] = error
        case .other:
            break
        }
    }

    /// Takes out whatever `identity` contributed.
    mutating func remove(_ identity: ItemIdentity) {
        absorbDeferred(account: identity.account)
        guard let stored = entries[IdentityKey(identity)] else { return }
        let probe = accountProbe(of: [stored.entry])
        removeEntry(identity)
        noteAccountChanges(probe)
    }

    /// Takes out whatever `identity` contributed, leaving the memo to the caller.
    mutating func removeEntry(_ identity: ItemIdentity) {
        absorbDeferred(account: identity.account)
        let key = IdentityKey(identity)
        guard let entry = entries.removeValue(forKey: key)?.entry else { return }
        partitionMembers?.remove(key)
        // Only from the maps `place` filed the entry in.
        switch entry {
        case .credential(let credential):
            credentialsByHomeAccount.removeAll(under: credential.homeAccountId) { $0.identity == identity }
            switch CredentialMap(credential.credentialType) {
            case .accessTokens: accessTokens.removeAll(under: credential.accessTokenKey) { $0.identity == identity }
            case .refreshTokens: refreshTokens.removeAll(under: credential.homeAccountId) { $0.identity == identity }
            case .idTokens: idTokens.removeAll(under: credential.homeAccountId) { $0.identity == identity }
            case .none: break
            }
        case .account(let account):
            accountsByHomeAccount.removeAll(under: account.homeAccountId) { $0.identity == identity }
            if let username = account.username { accountsByUsername.removeAll(under: username) { $0.identity == identity } }
        case .appMetadata(let metadata):
            appMetadata.removeAll(under: metadata.clientId) { $0.identity == identity }
        case .accountMetadata(let metadata):
            if accountMetadata[metadata.clientId]?.identity == identity { accountMetadata[metadata.clientId] = nil }
        case .accountSignIn(let signIn):
            accountSignIns.removeAll(under: SignInKey(clientId: signIn.signIn.clientId, home: signIn.signIn.homeAccountKey)) { $0.identity == identity }
        case .legacyToken(let token):
            legacyTokensByUser.removeAll(under: token.userId) { $0.identity == identity }
        case .tombstone:
            tombstones.remove(identity)
        case .unreadable:
            unreadable[identity] = nil
        case .other:
            break
        }
    }
}
