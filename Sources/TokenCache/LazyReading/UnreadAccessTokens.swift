import CacheStore
@_spi(Indexing) import TokenCacheSchema

/// The access tokens an index left in the store when it was read, and which home accounts' it has
/// read since.
///
/// Access tokens are three quarters of a cache, and every call that uses them names one home
/// account. A store that can (``SplitReadingStore``) is read whole without them (those stored
/// under a plain account attribute, ``leftOut``: all of MSAL's); a call that needs a home account's
/// access tokens notes the home (``CacheIndex/accessTokenMisses``), the engine reads them (one index range:
/// the attributes starting with `home-`) outside its lock, files them, and runs the call again.
///
/// A left-out access token is filed only once its home (the one its payload names) is read, by
/// every change to the index, so a home's access tokens are all in the index or none of them —
/// but for those read with the store (under an attribute that is not plain), whose homes are
/// remembered until read (``eagerHomes``). That is what lets a lookup that finds access tokens
/// answer at once; only one that finds none asks whether the home was read. Left-out items that
/// name no home (unreadable, tombstones) are filed when every access token is read.
struct UnreadAccessTokens: Sendable {
    /// What the store leaves out: access tokens (bearer and with an auth scheme) under a plain attribute.
    static let leftOut = LeftOutItems(types: [CredentialType.accessToken.typeCode, CredentialType.accessTokenWithAuthScheme.typeCode])

    /// Homes read (normalized).
    private(set) var readHomes = DigestedMap<Bool>()
    /// Homes not read whose access tokens the index holds some of: those read with the store, or
    /// filed since, under an attribute that is not plain. Almost always empty.
    private(set) var eagerHomes: Set<String> = []

    init(eagerHomes: Set<String> = []) {
        self.eagerHomes = eagerHomes
    }

    /// Whether every access token of `home` (normalized) is in the index.
    func isRead(home: String) -> Bool {
        readHomes[home] != nil
    }

    /// Whether the index holds some access tokens of `home` but not all: a lookup that found some
    /// must still ask.
    func holdsSomeOnly(home: String) -> Bool {
        !eagerHomes.isEmpty && eagerHomes.contains(home)
    }

    /// Whether `item`, which indexes to `entry`, may not be filed yet: a left-out item that is not
    /// an access token of a home read.
    func excludes(_ item: StoreItem, entry: CacheIndex.Entry) -> Bool {
        guard Self.leftOut.contains(type: item.type, account: item.account) else { return false }
        if case .credential(let credential) = entry { return !isRead(home: credential.homeAccountId) }
        return true
    }

    /// Records that every left-out item under `home-` has been read.
    mutating func markRead(home: String) {
        readHomes[home] = true
        eagerHomes.remove(home)
    }

    /// Records that the index holds an access token of `home`, read or not.
    mutating func noteFiled(home: String) {
        if !isRead(home: home) { eagerHomes.insert(home) }
    }
}

extension CacheIndex {
    /// Whether the lookups on this index are missing the access tokens of `home` (normalized); if
    /// so, the home is noted for the engine to read. Always false for an index read whole.
    func accessTokensMissing(home: String) -> Bool {
        guard let unread, !unread.isRead(home: home) else { return false }
        accessTokenMisses?.note(home)
        return true
    }

    /// Whether the index lacks some of the store's access tokens; if so, notes that a call needs
    /// them all.
    func someAccessTokensMissing() -> Bool {
        guard unread != nil else { return false }
        accessTokenMisses?.noteAll()
        return true
    }

    /// Files left-out items read from the store: those under `home-` for each of `homes`, or every
    /// one of them when `homes` is `nil` (the index then holds the whole store). Items the index
    /// already holds are replaced in place, as a store replaces them. Returns the tombstones among
    /// them, to be deleted as when a whole read meets them.
    mutating func fileLeftOut(_ items: [StoreItem], homes: [String]?) -> [ItemIdentity] {
        guard var unread else { return [] }
        if let homes {
            for home in homes { unread.markRead(home: home) }
            self.unread = unread
        } else {
            self.unread = nil
            accessTokenMisses = nil
        }
        var found: [ItemIdentity] = []
        for item in items {
            insert(item)
            if tombstones.contains(item.identity) { found.append(item.identity) }
        }
        return found
    }
}
