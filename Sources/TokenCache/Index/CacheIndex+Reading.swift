import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
@_spi(Indexing) import TokenCacheSchema

extension CacheIndex {
    /// Reads `store` and indexes its items: three stages that overlap, so opening a cache costs
    /// little more than the longest of them. The calling thread reads the store (serially: one
    /// consistent read) and hands over chunks of items; other cores decode each chunk (JSON, keyed
    /// archives); one serial builder files the decoded chunks in the index in the store's order.
    ///
    /// Access tokens stored under an account attribute of one of `hosts` (the known clouds' hosts)
    /// are read but not decoded (see ``DeferredAccessTokens``). With `leavingOutAccessTokens`, a
    /// store that can leaves most of them unread instead (see ``UnreadAccessTokens``): only an index
    /// the engine keeps may be read so, since only the engine reads the rest when a call needs it.
    static func read(from store: any ItemStore, deferringUnder hosts: [String], leavingOutAccessTokens: Bool = false) throws -> CacheIndex {
        let chunkSize = 256
        let decoding = DispatchGroup()
        let builder = Builder()
        var chunks = 0
        var count = 0
        let split = leavingOutAccessTokens ? store as? any SplitReadingStore : nil
        let receive = { (chunk: [StoreItem]) in
            // Numbered as received: a store may hand over chunks shorter than asked for.
            let number = chunks
            let base = count
            chunks += 1
            count += chunk.count
            DispatchQueue.global().async(group: decoding) {
                var keys: [IdentityKey] = []
                var stored: [Stored] = []
                keys.reserveCapacity(chunk.count)
                stored.reserveCapacity(chunk.count)
                // Access tokens are kept as read, in runs of one account attribute (a store's rows
                // come an account at a time, so most chunks hold a run or two).
                var runs: [Run] = []
                // The account attribute of the last access token, and an empty run under its names
                // when its tokens are deferred. Not one optional tuple holding an optional tuple:
                // that was copied through the runtime's generic value witnesses, 9% of an open's
                // instructions.
                var lastAccount: String?
                var lastRun: Run?
                var interner: StringInterner? = StringInterner(capacity: 128)
                for (position, item) in chunk.enumerated() {
                    let sequence = base + position
                    if DeferredAccessTokens.defers(type: item.type) {
                        if lastAccount != item.account {
                            lastAccount = item.account
                            let normalized = ItemKey.normalized(item.account)
                            lastRun = DeferredAccessTokens.split(account: normalized, hosts: hosts).map {
                                Run(account: normalized, home: $0.home, environment: $0.environment, items: [])
                            }
                        }
                        if let account = lastRun?.account {
                            if runs.last?.account == account {
                                runs[runs.count - 1].items.append(.init(item: item, sequence: sequence))
                            } else {
                                var run = lastRun!
                                run.items = [.init(item: item, sequence: sequence)]
                                runs.append(run)
                            }
                            continue
                        }
                    }
                    let identity = item.identity
                    keys.append(IdentityKey(identity))
                    // The payload is let go here, on this core (a credential's box keeps what it needs).
                    let entry = entry(for: item, identity: identity, sequence: sequence, interner: &interner)
                    stored.append(Stored(item, sequence: sequence, entry: entry))
                }
                builder.deliver(number, keys: keys, stored: stored, deferred: runs)
            }
        }
        if let split {
            try split.readAllItems(chunkSize: chunkSize, leavingOut: UnreadAccessTokens.leftOut, into: receive)
        } else {
            try store.readAllItems(chunkSize: chunkSize, into: receive)
        }
        decoding.wait()
        var index = builder.finish(count: count)
        // The access tokens read with the store (under an attribute that is not plain) are some of their homes' only.
        if split != nil {
            index.unread = UnreadAccessTokens(eagerHomes: Set(index.accessTokens.keys.map(\.homeAccountId)))
            index.accessTokenMisses = NotedHomes()
        }
        return index
    }

    /// Access tokens of one account attribute, next to each other in the store's order.
    struct Run: Sendable {
        let account: String
        let home: String
        let environment: String
        var items: [DeferredAccessTokens.Item]
    }

    /// The last stage of ``read(from:deferringUnder:)``: receives decoded chunks in any order and files them in the
    /// identity map and the lookup maps in chunk order, on its own serial queue, while later chunks
    /// are still being read and decoded.
    final class Builder: @unchecked Sendable {
        // `index`, `ready`, `displaced` and `next` are only touched on `queue` (and by `finish` after `sync`).
        private let queue = DispatchQueue(label: "tokencache.index-builder")
        private var index = CacheIndex(items: [])
        private var ready: [Int: (keys: [IdentityKey], stored: [Stored], deferred: [Run])] = [:]
        /// Deferred access tokens by normalized account attribute, in store order.
        private var deferred = DigestedMap<Run>()
        private var deferredCount = 0
        /// Home accounts with access tokens decoded here (of an environment that is not deferred).
        private var eagerAccessTokenHomes: Set<String> = []
        /// Items a later item of the same identity replaced in the identity map (a store that
        /// returned an identity twice); the lookup maps still hold both.
        private var displaced: [(key: IdentityKey, stored: Stored)] = []
        private var next = 0

        func deliver(
            _ number: Int, keys: [IdentityKey], stored: [Stored], deferred: [Run]
        ) {
            queue.async {
                self.ready[number] = (keys, stored, deferred)
                while let chunk = self.ready.removeValue(forKey: self.next) {
                    for run in chunk.deferred {
                        // One hash of the (long) attribute for the usual run, the first of its account.
                        if var earlier = self.deferred.updateValue(run, forKey: run.account) {
                            earlier.items.append(contentsOf: run.items)
                            self.deferred[run.account] = earlier
                        }
                        self.deferredCount += run.items.count
                    }
                    for position in chunk.keys.indices {
                        let key = chunk.keys[position]
                        let value = chunk.stored[position]
                        if case .credential(let credential) = value.entry, credential.isAccessToken {
                            self.eagerAccessTokenHomes.insert(credential.homeAccountId)
                        }
                        self.index.place(value.entry) { key.identity }
                        if let other = self.index.entries.updateValue(value, forKey: key) {
                            self.displaced.append((key, other))
                        }
                    }
                    self.next += 1
                }
            }
        }

        /// The index, once every chunk (`count` items in all) was delivered.
        func finish(count: Int) -> CacheIndex {
            queue.sync {
                index.nextSequence = count
                var built = displaced.isEmpty ? index : Self.serialIndex(index, displaced)
                built.deferredHomes.reserveCapacity(deferred.count)
                built.deferred.reserveCapacity(deferred.count)
                for run in deferred.values {
                    built.deferred[run.home, default: []].append(
                        DeferredAccessTokens(account: run.account, environment: run.environment, items: run.items))
                    built.deferredHomes[run.account] = run.home
                }
                built.deferredCount = deferredCount
                // A home account's access tokens are all deferred or all decoded (see
                // CacheIndex.absorbDeferred(before:)).
                for home in eagerAccessTokenHomes { _ = built.absorbDeferred(homeAccountId: home) }
                return built
            }
        }

        /// The index built item by item, in store order, as ``CacheIndex/insert(_:)`` would build it
        /// (the later of two items with one identity wins): for a store that returned an identity
        /// twice, which the lookup maps filed so far do not account for.
        private static func serialIndex(_ partial: CacheIndex, _ displaced: [(key: IdentityKey, stored: Stored)]) -> CacheIndex {
            let all = (partial.entries.map { ($0.key, $0.value) } + displaced).sorted { $0.1.sequence < $1.1.sequence }
            var index = CacheIndex(items: [])
            // Each item keeps the position it was read at (its entry was decoded with it, and the
            // deferred access tokens are numbered in the same sequence).
            for (key, stored) in all {
                index.add(stored.attributes(key), key: key, sequence: stored.sequence, entry: stored.entry)
            }
            index.nextSequence = partial.nextSequence
            return index
        }
    }
}
