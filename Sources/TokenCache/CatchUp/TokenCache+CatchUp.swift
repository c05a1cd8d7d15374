import CacheStore

extension TokenCache {
    /// Brings the index to the store's content by re-reading only the partitions committed to since
    /// the index's revision, when the store can name them; `nil` when it cannot (or the index was
    /// never read), and the caller reads the whole store.
    ///
    /// `stamp` was taken before this call: the index is labelled with it, so a commit racing with
    /// the reads changes the stamp again and the next call catches up once more. The new revision
    /// is taken before the partitions are read, for the same reason.
    func catchUp(to stamp: ChangeStamp) throws -> CacheIndex? {
        for _ in 0..<3 {
            guard let revision = state.withLock({ $0.stamp == nil ? nil : $0.revision }) else { return nil }
            guard let changes = try (store as? any PartitionTrackingStore)?.partitionChanges(since: revision) else { return nil }
            let changed = Array(Set(changes.partitions).filter { store.accessGroups.contains($0.accessGroup) })
            // After a large import by another process one whole read is cheaper than a read per
            // partition (about six items' worth of decoding each).
            let indexed = state.withLock { $0.index.itemCount }
            if changed.count > Self.partitionReadLimit(indexedItems: indexed) { return nil }
            let reads = zip(changed, try changed.isEmpty ? [] : store.readPartitions(changed).map(\.items))
            let caughtUp = state.withLock { state -> CacheIndex? in
                // Another thread moved the index to another revision meanwhile (a full read, or a
                // catch-up of its own): these reads are not relative to it, so start over.
                guard state.stamp != nil, state.revision == revision else { return nil }
                for (partition, items) in reads {
                    state.index.replacePartition(partition, with: items)
                }
                state.stamp = stamp
                state.revision = changes.revision
                return state.index
            }
            if let caughtUp { return caughtUp }
            if let index = state.withLock({ $0.stamp == stamp ? $0.index : nil }) { return index }
        }
        return nil
    }

    /// How many changed partitions catch-up reads by partition; past it, the caller reads the whole store.
    static func partitionReadLimit(indexedItems: Int) -> Int {
        max(32, indexedItems / 8)
    }
}
