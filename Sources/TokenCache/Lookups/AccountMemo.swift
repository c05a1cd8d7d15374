import CacheStore

/// Answers the index has already computed for account listings: built on first request, replaced
/// whenever the index changes (every mutation gives the index a new memo).
///
/// A new memo carries the account answers of the one it replaces that the change cannot have
/// touched: a save changes one home account, so the listing first asked for after it rebuilds that
/// account and takes the other entries from the listing before (`AccountChange` says what moved).
final class AccountMemo: Sendable {
    /// Hashed by digest, as the index's maps are: every `account(identifier:)` and
    /// `account(username:)` probes the memo, and SipHash over the three strings was a fifth of
    /// the call.
    struct Key: DigestHashable, Sendable {
        let homeAccountId: String
        let clientId: String?
        let environment: String?
        let digest: KeyDigest

        init(homeAccountId: String, clientId: String?, environment: String?) {
            self.homeAccountId = homeAccountId
            self.clientId = clientId
            self.environment = environment
            var digest = KeyDigest()
            digest.add(homeAccountId)
            // Absent and empty differ.
            digest.add(word: (clientId == nil ? 0 : 1) | (environment == nil ? 0 : 2))
            if let clientId { digest.add(clientId) }
            if let environment { digest.add(environment) }
            self.digest = digest
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.digest == rhs.digest && lhs.homeAccountId == rhs.homeAccountId && lhs.clientId == rhs.clientId
                && lhs.environment == rhs.environment
        }
    }

    struct ListingKey: Hashable, Sendable {
        let clientId: String?
        let environment: String?
        let idTokenClaims: Bool
    }

    /// Answers of an earlier index state that still hold in this one for every home account not in
    /// `changedHomes` (and the home account order, unless `orderChanged`).
    struct Carried: Sendable {
        var accounts: [Key: CachedAccount?]
        var listings: [ListingKey: [CachedAccount]]
        var homeOrder: [String]?
        var changedHomes: Set<String> = []
        var orderChanged = false
    }

    /// A listing of an earlier state to update rather than rebuild.
    struct PreviousListing {
        /// The unified accounts it listed, in the home account order, which has not changed since.
        let accounts: [CachedAccount]
        /// The home accounts whose entries may differ now.
        let changedHomes: Set<String>
    }

    /// Past this many changed home accounts nothing is carried: a bulk change rebuilds anyway.
    static let carryLimit = 256

    let carried: Carried?
    /// This state's home account order, once computed (see ``homeOrder(_:)``).
    let knownHomeOrder = StateLock<[String]?>(nil)
    let accounts = StateLock<[Key: CachedAccount?]>([:])
    /// Unified accounts only (what is carried); `fullListings` adds the legacy ADAL accounts.
    let listings = StateLock<[ListingKey: [CachedAccount]]>([:])
    let fullListings = StateLock<[ListingKey: [CachedAccount]]>([:])
    /// The MSAL entries the legacy ADAL entries stand for (search), built on first use.
    let legacyProjections = StateLock<LegacyProjections?>(nil)

    init(carrying carried: Carried? = nil) {
        self.carried = carried
    }

    /// The memo of the index state after `change`: this one's answers (or, when it computed none,
    /// what it carried) minus what the change touched.
    func next(after change: AccountChange) -> AccountMemo {
        if change.everything { return AccountMemo() }
        var base: Carried
        let ownAccounts = accounts.withLock { $0 }
        let ownListings = listings.withLock { $0 }
        let ownOrder = knownHomeOrder.withLock { $0 }
        if !ownListings.isEmpty || !ownAccounts.isEmpty || ownOrder != nil {
            base = Carried(accounts: ownAccounts, listings: ownListings, homeOrder: ownOrder)
        } else if let carried {
            base = carried
        } else {
            return AccountMemo()
        }
        base.changedHomes.formUnion(change.homes)
        base.orderChanged = base.orderChanged || change.order
        if base.changedHomes.count > Self.carryLimit { return AccountMemo() }
        return AccountMemo(carrying: base)
    }

    /// The home account order: this state's, else the carried one when no change moved it.
    func homeOrder(_ compute: () -> [String]) -> [String] {
        if let order = knownHomeOrder.withLock({ $0 }) { return order }
        let order: [String]
        if let carried, !carried.orderChanged, let previous = carried.homeOrder {
            order = previous
        } else {
            order = compute()
        }
        knownHomeOrder.withLock { $0 = order }
        return order
    }

    /// The unified listing for `key`: `compute` is given the listing of an earlier state to update
    /// when one is carried and the order has not moved.
    func listing(_ key: ListingKey, _ compute: (PreviousListing?) throws -> [CachedAccount]) rethrows -> [CachedAccount] {
        if let known = listings.withLock({ $0[key] }) { return known }
        var previous: PreviousListing?
        if let carried, !carried.orderChanged, let accounts = carried.listings[key] {
            previous = PreviousListing(accounts: accounts, changedHomes: carried.changedHomes)
        }
        let value = try compute(previous)
        listings.withLock { $0[key] = value }
        return value
    }

    /// `compute()` the first time the full listing for `key` is asked for, the remembered one afterwards.
    func fullListing(_ key: ListingKey, _ compute: () throws -> [CachedAccount]) rethrows -> [CachedAccount] {
        try Self.remember(key, in: fullListings, compute)
    }

    /// The account answer for `key` known in this state, or carried from the state before and
    /// untouched since; `nil` when it has to be built (then ``remember(_:for:)`` it).
    ///
    /// No closure for the build: one capturing the index made every hit copy the whole index
    /// (290 ns a lookup instead of 165).
    func knownAccount(_ key: Key) -> CachedAccount?? {
        if let known = accounts.withLock({ $0[key] }) { return known }
        guard let carried, !carried.changedHomes.contains(key.homeAccountId), let known = carried.accounts[key] else { return nil }
        accounts.withLock { $0[key] = known }
        return known
    }

    /// Records the answer built for `key`.
    func remember(_ account: CachedAccount?, for key: Key) {
        accounts.withLock { $0[key] = account }
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

/// What a change to the index can have changed in the account answers.
struct AccountChange: Sendable {
    /// Home accounts whose records, refresh tokens, ID tokens or sign-in states changed.
    var homes: Set<String> = []
    /// Whether a home account appeared, went, or moved in the order of first account records.
    var order = false
    /// Whether every answer may have changed (an app's family did).
    var everything = false
}
