import CacheStore
import Foundation
@_spi(Indexing) import TokenCacheSchema

extension CacheIndex {
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
                var attributes: [StoreItem] = []
                keys.reserveCapacity(chunk.count)
                attributes.reserveCapacity(chunk.count)
                var interner: StringInterner? = StringInterner(capacity: 128)
                let entries = chunk.enumerated().map { position, item in
                    let identity = item.identity
                    keys.append(IdentityKey(identity))
                    // The index keeps attributes only; the payload is let go here, on this core.
                    var stripped = item
                    stripped.data = Data()
                    attributes.append(stripped)
                    return entry(for: item, identity: identity, sequence: base + position, interner: &interner)
                }
                builder.deliver(number, items: attributes, keys: keys, entries: entries)
            }
        }
        decoding.wait()
        return builder.finish()
    }

    /// The last stage of ``read(from:)``: receives decoded chunks in any order and files them in the
    /// lookup maps in chunk order, on its own serial queue. The identity map is filled once the
    /// count is known (``finish()``), so it is allocated once instead of grown a dozen times.
    final class Builder: @unchecked Sendable {
        private typealias Chunk = (items: [StoreItem], keys: [IdentityKey], entries: [Entry])
        // `index`, `ready`, `filed` and `next` are only touched on `queue` (and by `finish` after `sync`).
        private let queue = DispatchQueue(label: "tokencache.index-builder")
        private var index = CacheIndex(items: [])
        private var ready: [Int: Chunk] = [:]
        /// The chunks placed in the lookup maps, in order.
        private var filed: [Chunk] = []
        private var next = 0

        func deliver(_ number: Int, items: [StoreItem], keys: [IdentityKey], entries: [Entry]) {
            queue.async {
                self.ready[number] = (items, keys, entries)
                while let chunk = self.ready.removeValue(forKey: self.next) {
                    for position in chunk.items.indices {
                        self.index.place(chunk.entries[position]) { chunk.keys[position].identity }
                    }
                    self.filed.append(chunk)
                    self.next += 1
                }
            }
        }

        /// The index, once every chunk was delivered.
        func finish() -> CacheIndex {
            queue.sync {
                var count = filed.reduce(0) { $0 + $1.items.count }
                index.entries.reserveCapacity(count)
                index.nextSequence = count
                // Moved out of the chunks (last first: the order of a dictionary's insertions does not
                // matter), not copied: a copy would touch every item's strings again.
                var displaced: [(key: IdentityKey, item: StoreItem, sequence: Int, entry: Entry)] = []
                while var chunk = filed.popLast() {
                    while let attributes = chunk.items.popLast(), let key = chunk.keys.popLast(), let entry = chunk.entries.popLast() {
                        count -= 1
                        if let other = index.entries.updateValue((attributes, count, entry), forKey: key) {
                            displaced.append((key, other.item, other.sequence, other.entry))
                        }
                    }
                }
                return displaced.isEmpty ? index : Self.serialIndex(index, displaced)
            }
        }

        /// The index built item by item, in store order, as ``CacheIndex/insert(_:)`` would build it
        /// (the later of two items with one identity wins): for a store that returned an identity
        /// twice, which the lookup maps filed so far do not account for.
        private static func serialIndex(
            _ partial: CacheIndex, _ displaced: [(key: IdentityKey, item: StoreItem, sequence: Int, entry: Entry)]
        ) -> CacheIndex {
            let all = (partial.entries.map { ($0.key, $0.value.item, $0.value.sequence, $0.value.entry) } + displaced)
                .sorted { $0.2 < $1.2 }
            var index = CacheIndex(items: [])
            for (key, item, _, entry) in all {
                index.add(item, key: key, sequence: index.nextSequence, entry: entry)
                index.nextSequence += 1
            }
            return index
        }
    }
}
