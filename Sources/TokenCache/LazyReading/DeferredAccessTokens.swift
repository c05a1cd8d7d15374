import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Indexing) import TokenCacheSchema

/// The access tokens stored under one account attribute, read with the rest of the store when a
/// cache opens but decoded only when a call asks for that account's access tokens.
///
/// Access tokens are three quarters of a cache, and every call that uses them names one account
/// (and the environment it signs in to), which names the account attribute they are stored under:
/// `norm(home_account_id)-norm(environment)`, as the keychain finds them. Decoding them all at open
/// was most of an open's cost; now an account's are decoded by the first call that reads them, and
/// the engine moves them into its index proper after that call (``CacheIndex/deferredUse``).
///
/// A box is immutable but for that one decode, which gives the same result whenever it happens, so
/// copies of an index share boxes freely. A change to the index that touches the attribute, or
/// adds a decoded access token of the account, first moves the account's boxes into the index
/// proper (``CacheIndex/absorbDeferred(account:)``, ``CacheIndex/absorbDeferred(before:)``).
final class DeferredAccessTokens: Sendable {
    /// A stored access token and its position in the store's order.
    struct Item: Sendable {
        let item: StoreItem
        let sequence: Int
    }

    /// What the items index to, in store order.
    struct Decoded: Sendable {
        /// Every item's identity and slot (a later item of the same identity replaces an earlier
        /// one, as in the identity map).
        let slots: [(key: CacheIndex.IdentityKey, stored: CacheIndex.Stored)]
        /// The readable, live access tokens among them.
        let credentials: [IndexedCredential]
    }

    /// The normalized account attribute the items are stored under: `home-environment`.
    let account: String
    /// The environment part of ``account`` (a known cloud host).
    let environment: String
    let items: [Item]
    private let decoded = StateLock<Decoded?>(nil)

    init(account: String, environment: String, items: [Item]) {
        self.account = account
        self.environment = environment
        self.items = items
    }

    /// The home account and environment an account attribute (normalized) names, when it ends with
    /// one of `hosts` (the longest that does; see ``CloudAliases/hosts(ending:)``). Attributes of
    /// other environments are not deferred.
    static func split(account: String, hosts: [String]) -> (home: String, environment: String)? {
        guard let host = CloudAliases.longestHost(ending: account, among: hosts) else {
            return nil
        }
        return (String(account.utf8.dropLast(host.utf8.count + 1))!, host)
    }

    /// The items' index entries, decoded on first use.
    var entries: Decoded {
        decoded.withLock { known in
            if let known { return known }
            var position: [CacheIndex.IdentityKey: Int] = [:]
            var slots: [(key: CacheIndex.IdentityKey, stored: CacheIndex.Stored)] = []
            slots.reserveCapacity(items.count)
            for deferred in items {
                let identity = deferred.item.identity
                let key = CacheIndex.IdentityKey(identity)
                let entry = CacheIndex.entry(for: deferred.item, identity: identity, sequence: deferred.sequence)
                let slot = (key, CacheIndex.Stored(deferred.item, sequence: deferred.sequence, entry: entry))
                if let earlier = position[key] {
                    slots[earlier] = slot
                } else {
                    position[key] = slots.count
                    slots.append(slot)
                }
            }
            slots.sort { $0.stored.sequence < $1.stored.sequence }
            let credentials = slots.compactMap { slot -> IndexedCredential? in
                if case .credential(let credential) = slot.stored.entry { return credential }
                return nil
            }
            let result = Decoded(slots: slots, credentials: credentials)
            known = result
            return result
        }
    }

    /// Whether `type` is a kind of item opening a cache defers.
    static func defers(type: UInt32?) -> Bool {
        type == CredentialType.accessToken.typeCode || type == CredentialType.accessTokenWithAuthScheme.typeCode
    }
}

extension CacheIndex {
    /// The deferred boxes of `homeAccountId` (normalized) for any of `environments`, or for every
    /// environment when `nil`; noted as used when there are some.
    private func deferredBoxes(homeAccountId: String, environments: [String]?) -> [DeferredAccessTokens] {
        guard !deferred.isEmpty, let boxes = deferred[homeAccountId] else { return [] }
        deferredUse.note(homeAccountId)
        guard let environments else { return boxes }
        return boxes.filter { box in environments.contains { ItemKey.normalized($0) == box.environment } }
    }

    /// `decoded` and the deferred credentials `boxes` hold that pass `filter`, in store order.
    private func merging(
        _ decoded: [IndexedCredential], _ boxes: [DeferredAccessTokens], _ filter: (IndexedCredential) -> Bool
    ) -> [IndexedCredential] {
        guard !boxes.isEmpty else { return decoded }
        var all = decoded
        for box in boxes { all += box.entries.credentials.lazy.filter(filter) }
        if boxes.count > 1 || (!decoded.isEmpty && all.count > decoded.count) { all.sort { $0.sequence < $1.sequence } }
        return all
    }

    /// The access tokens filed under `key`, including the deferred ones stored under the account's
    /// attribute for one of `environments` (every environment when `nil`), in store order.
    func accessTokens(_ key: AccessTokenKey, environments: [String]?) -> [IndexedCredential] {
        let decoded = accessTokens[key] ?? []
        // Found: the home was read (see UnreadAccessTokens), but for the rare home the index holds
        // only some access tokens of.
        if !decoded.isEmpty && !(unread?.holdsSomeOnly(home: key.homeAccountId) ?? false) { return decoded }
        if accessTokensMissing(home: key.homeAccountId) { return [] }
        // A home account's access tokens are either all deferred or none (see absorbDeferred(into:)).
        if !decoded.isEmpty || deferred.isEmpty { return decoded }
        return merging(decoded, deferredBoxes(homeAccountId: key.homeAccountId, environments: environments)) {
            $0.accessTokenKey == key
        }
    }

    /// The access tokens of one home account and client in any realm, as ``accessTokens(_:environments:)``.
    func accessTokens(homeAccountId: String, clientId: String, environments: [String]?) -> [IndexedCredential] {
        if accessTokensMissing(home: homeAccountId) { return [] }
        let decoded = accessTokens.lazy.filter { $0.key.homeAccountId == homeAccountId && $0.key.clientId == clientId }
            .flatMap(\.value)
        // Sorted: the realms' lists come in the dictionary's order. Decoded tokens mean no deferred ones.
        if !decoded.isEmpty || deferred.isEmpty { return decoded.sorted { $0.sequence < $1.sequence } }
        return merging([], deferredBoxes(homeAccountId: homeAccountId, environments: environments)) {
            $0.homeAccountId == homeAccountId && $0.clientId == clientId
        }
    }

    /// Every credential of one home account, whatever its kind, in store order; of the deferred
    /// access tokens only those of `environments` (every environment when `nil`).
    func credentials(homeAccountId: String, environments: [String]? = nil) -> [IndexedCredential] {
        if accessTokensMissing(home: homeAccountId) { return [] }
        return merging(credentialsByHomeAccount[homeAccountId] ?? [], deferredBoxes(homeAccountId: homeAccountId, environments: environments)) {
            $0.homeAccountId == homeAccountId
        }
    }

    /// Every credential by home account, the deferred ones decoded (every one of them: not a hot path).
    var allCredentialsByHomeAccount: DigestedMap<[IndexedCredential]> {
        if someAccessTokensMissing() { return DigestedMap() }
        guard !deferred.isEmpty else { return credentialsByHomeAccount }
        var all = credentialsByHomeAccount
        for box in deferred.values.joined() {
            for credential in box.entries.credentials { all[credential.homeAccountId, default: []].append(credential) }
        }
        for (home, list) in all where list.count > 1 { all[home] = list.sorted { $0.sequence < $1.sequence } }
        return all
    }

    /// Every unified item whose payload could not be read, the deferred ones decoded.
    var allUnreadable: [ItemIdentity: SchemaError] {
        if someAccessTokensMissing() { return [:] }
        var all = unreadable
        for box in deferred.values.joined() {
            for slot in box.entries.slots {
                if case .unreadable(let error) = slot.stored.entry { all[slot.key.identity] = error }
            }
        }
        return all
    }

    /// Moves the deferred access tokens of `homeAccountId` (normalized) into the index proper, so
    /// that the calls after it read them from the lookup maps; returns the tombstones among them
    /// (to be deleted, as when a whole read meets them).
    mutating func absorbDeferred(homeAccountId: String) -> [ItemIdentity] {
        guard !deferred.isEmpty, let boxes = deferred.removeValue(forKey: homeAccountId) else { return [] }
        return boxes.flatMap { absorb($0) }
    }

    /// Moves the deferred access tokens of the home account whose items are stored under `account`
    /// (an account attribute, as stored) into the index proper: done before any change that
    /// touches the attribute, so that the change finds them in the identity map.
    mutating func absorbDeferred(account: String) {
        guard !deferred.isEmpty, let home = deferredHomes[ItemKey.normalized(account)] else { return }
        _ = absorbDeferred(homeAccountId: home)
    }

    /// Keeps a home account's access tokens all deferred or all decoded: when `entry` is a decoded
    /// access token, the home account's deferred ones are moved into the index first. The lookups
    /// rely on it: a key with decoded access tokens has no deferred ones.
    mutating func absorbDeferred(before entry: Entry) {
        guard !deferred.isEmpty, case .credential(let credential) = entry, credential.isAccessToken else { return }
        _ = absorbDeferred(homeAccountId: credential.homeAccountId)
    }

    /// Moves every deferred item into the index proper.
    mutating func absorbAllDeferred() {
        let boxes = deferred.values.joined().sorted { $0.items[0].sequence < $1.items[0].sequence }
        deferred = DigestedMap()
        for box in boxes { absorb(box) }
    }

    @discardableResult
    private mutating func absorb(_ box: DeferredAccessTokens) -> [ItemIdentity] {
        deferredCount -= box.items.count
        deferredHomes[box.account] = nil
        // Placed directly, not through add (whose absorbDeferred(before:) would find this home's
        // other boxes already taken out by the caller).
        var tombstones: [ItemIdentity] = []
        for (key, stored) in box.entries.slots {
            entries[key] = stored
            partitionMembers?.insert(key)
            place(stored.entry) { key.identity }
            if case .tombstone = stored.entry { tombstones.append(key.identity) }
        }
        return tombstones
    }
}
