import CacheStore
import Synchronization
@_spi(Indexing) import TokenCacheSchema

/// The access tokens an index left in the store when it was read, and which home accounts' it has
/// read since.
///
/// Access tokens are three quarters of a cache, and every call that uses them names one home
/// account. A store that can (``SplitReadingStore``) is read whole without them (those stored
/// under a plain account attribute, ``leftOut``: all of MSAL's); a call that needs a home account's
/// access tokens notes the home (``AccessTokenMisses``), the engine reads them (one index range:
/// the attributes starting with `home-`) outside its lock, files them, and runs the call again.
///
/// A home is read when it, or any home followed by `-` that starts it, was read by prefix: every
/// left-out item whose attribute starts with such a prefix is in the index. Only those are ever
/// filed: an item left out and not covered yet is skipped by every change to the index (it comes
/// with its home's read), so a home's access tokens are all in the index or none.
struct UnreadAccessTokens: Sendable {
    /// What the store leaves out: access tokens (bearer and with an auth scheme) under a plain attribute.
    static let leftOut = LeftOutItems(types: [CredentialType.accessToken.typeCode, CredentialType.accessTokenWithAuthScheme.typeCode])

    /// Homes read by prefix (normalized; plain or not).
    private(set) var readHomes = DigestedMap<Bool>()
    /// Where the calls on this index note the homes they found unread. Replaced, for a copy of the
    /// index that runs outside the engine's lock (a plan), so that two calls never share one.
    var misses = AccessTokenMisses()

    /// Whether the access tokens of `home` (normalized) are in the index.
    func isRead(home: String) -> Bool {
        if readHomes[home] != nil { return true }
        return covers(prefixesOf: home, includingWhole: false)
    }

    /// Whether `item` is left out and its home not read: an item no change may file.
    func excludes(_ item: StoreItem) -> Bool {
        guard Self.leftOut.contains(type: item.type, account: item.account) else { return false }
        return !covers(prefixesOf: item.account, includingWhole: false)
    }

    /// Whether a read home is `text` up to one of its `-` (or all of `text`, when `includingWhole`).
    private func covers(prefixesOf text: String, includingWhole: Bool) -> Bool {
        let utf8 = text.utf8
        for position in utf8.indices where utf8[position] == UInt8(ascii: "-") {
            if readHomes[String(text[..<position])] != nil { return true }
        }
        return includingWhole && readHomes[text] != nil
    }

    /// Records that every left-out item under `home-` has been read.
    mutating func markRead(home: String) {
        readHomes[home] = true
    }

    /// Whether `home`'s access tokens are missing from the index; if so, notes it for the engine.
    func missing(home: String) -> Bool {
        if isRead(home: home) { return false }
        misses.note(home)
        return true
    }
}

/// The homes whose access tokens calls on an index found unread, or that a call needed every
/// access token: what the engine reads before running them again. Checking is one atomic load.
final class AccessTokenMisses: Sendable {
    struct Missed: Sendable {
        var homes: [String] = []
        var all = false
    }

    private let pending = Atomic<Bool>(false)
    private let missed = Mutex(Missed())

    func note(_ home: String) {
        missed.withLock { if !$0.homes.contains(home) { $0.homes.append(home) } }
        pending.store(true, ordering: .releasing)
    }

    func noteAll() {
        missed.withLock { $0.all = true }
        pending.store(true, ordering: .releasing)
    }

    /// What was noted since the last call, forgotten; `nil` when nothing was.
    func take() -> Missed? {
        guard pending.load(ordering: .acquiring) else { return nil }
        pending.store(false, ordering: .relaxed)
        return missed.withLock { noted in
            defer { noted = Missed() }
            return noted
        }
    }
}

extension CacheIndex {
    /// Whether the lookups on this index are missing the access tokens of `home` (normalized); if
    /// so, the home is noted for the engine to read. Always false for an index read whole.
    func accessTokensMissing(home: String) -> Bool {
        guard let unread else { return false }
        return unread.missing(home: home)
    }

    /// Whether the index lacks some of the store's access tokens; if so, notes that a call needs
    /// them all.
    func someAccessTokensMissing() -> Bool {
        guard let unread else { return false }
        unread.misses.noteAll()
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
        }
        var found: [ItemIdentity] = []
        for item in items where !(self.unread?.excludes(item) ?? false) {
            insert(item)
            if tombstones.contains(item.identity) { found.append(item.identity) }
        }
        return found
    }
}
