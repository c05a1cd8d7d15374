import CacheStore

/// Reading the access tokens an index left in the store (see ``UnreadAccessTokens``) when a call
/// needs them.
extension TokenCache {
    /// Thrown out of a plan that met a home whose access tokens the index has not read: the store
    /// writes nothing, they are read, and the plan runs again.
    struct MissingAccessTokens: Error {
        let missed: NotedHomes.Noted
    }

    /// Reads what `missed` names from the store and files it in the engine's index, unless the
    /// index changed meanwhile (then the call runs again and notes what it still lacks). Outside
    /// the engine's lock, as every store read here: a plan holds the store's lock and then takes
    /// the engine's. `round` counts the reads one call made; from the third on, every access token
    /// left is read at once, as it is for more than a handful of homes.
    func readAccessTokens(_ missed: NotedHomes.Noted, round: Int) throws {
        guard let store = store as? any SplitReadingStore else { return }
        let homes = missed.homesToRead(round: round)
        let before = state.withLock { $0.stamp }
        let items = try Self.leftOutItems(of: homes, in: store)
        let tombstones = state.withLock { state -> [ItemIdentity] in
            guard state.stamp == before, state.index.unread != nil else { return [] }
            return state.index.fileLeftOut(items, homes: homes)
        }
        // A failure only means they are met again.
        if !tombstones.isEmpty { _ = try? commit(tombstones.map { .delete($0.query) }) }
    }

    /// The left-out items under `home-` for each of `homes`, or all of them when `nil`.
    private static func leftOutItems(of homes: [String]?, in store: any SplitReadingStore) throws -> [StoreItem] {
        guard let homes else { return try store.leftOutItems(UnreadAccessTokens.leftOut, accountPrefix: nil) }
        return try homes.flatMap { try store.leftOutItems(UnreadAccessTokens.leftOut, accountPrefix: $0 + "-") }
    }

    /// `body` answered on a copy of the current index, outside the engine's lock (when other
    /// writers kept moving the store): the access tokens it lacks are read into the copy, by home
    /// twice, then all at once.
    func answerOnCopy<R>(_ body: (CacheIndex) throws -> R) throws -> R {
        var index = try currentIndex()
        guard let store = store as? any SplitReadingStore else { return try body(index) }
        for round in 0..<3 {
            guard index.unread != nil else { break }
            index.accessTokenMisses = NotedHomes()
            let answer = try body(index)
            guard let missed = index.accessTokenMisses!.take() else { return answer }
            let homes = missed.homesToRead(round: round)
            _ = index.fileLeftOut(try Self.leftOutItems(of: homes, in: store), homes: homes)
        }
        return try body(index)
    }

    /// The index for the store's current content with every access token in it: for the calls
    /// that need them all (diagnostics; not a hot path).
    func completeIndex() throws -> CacheIndex {
        for _ in 0..<3 {
            let index = try currentIndex()
            guard index.unread != nil else { return index }
            try readAccessTokens(NotedHomes.Noted(all: true), round: 2)
        }
        // Other writers kept moving the store: one whole read, not kept.
        return try CacheIndex.read(from: store, deferringUnder: configuration.clouds.hosts)
    }
}

extension NotedHomes.Noted {
    /// The homes whose access tokens the `round`-th read of one call (from 0) reads, or `nil` for
    /// every access token: when the call needs them all, from the third read on, and for more
    /// than a handful of homes.
    func homesToRead(round: Int) -> [String]? {
        all || round >= 2 || homes.count > 8 ? nil : homes
    }
}
