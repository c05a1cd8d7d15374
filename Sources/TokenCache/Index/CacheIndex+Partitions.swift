import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The identities each partition holds in an index: what replacing a partition takes out. Lists,
/// not sets: a partition holds a few items, and building the map for a whole store (on the first
/// catch-up) costs one append per item.
struct PartitionMembers: Sendable {
    private(set) var members: [PartitionID: [CacheIndex.IdentityKey]] = [:]

    mutating func insert(_ key: CacheIndex.IdentityKey) {
        members[key.identity.partition, default: []].append(key)
    }

    mutating func remove(_ key: CacheIndex.IdentityKey) {
        // One hash of the partition, the list changed in place.
        guard let slot = members.index(forKey: key.identity.partition),
            let position = members.values[slot].firstIndex(of: key)
        else { return }
        members.values[slot].remove(at: position)
        if members.values[slot].isEmpty { members.remove(at: slot) }
    }
}

extension ItemIdentity {
    /// The partition an item with this identity belongs to.
    var partition: PartitionID { PartitionID(accessGroup: accessGroup, account: account) }
}

extension CacheIndex {
    /// How many items the index holds in `partition`.
    mutating func itemCount(in partition: PartitionID) -> Int {
        absorbDeferred(account: partition.account)
        ensurePartitionMembers()
        return partitionMembers!.members[partition]?.count ?? 0
    }

    /// Builds the partition map on first use: most indexes never replace a partition, and the
    /// map would slow down every open.
    mutating func ensurePartitionMembers() {
        guard partitionMembers == nil else { return }
        var members = PartitionMembers()
        for key in entries.keys { members.insert(key) }
        partitionMembers = members
    }

    /// Replaces what the index holds of `partition` with `items`, a fresh read of it in store order
    /// (empty when the partition is gone or is to be forgotten).
    ///
    /// Items the index already held keep their place while they come in the order they had and
    /// with the creation date they had (when known: the engine's own writes carry none), as a store keeps an item's place and creation date when it
    /// is replaced; the others go after every item indexed so far, as a store adds them. (A store
    /// that records no creation dates cannot tell an item deleted and added again since the last
    /// read from one replaced in place; such an item may keep its old place, which only changes the
    /// order of listings and which of two otherwise equal answers comes first.)
    mutating func replacePartition(_ partition: PartitionID, with items: [StoreItem]) {
        absorbDeferred(account: partition.account)
        ensurePartitionMembers()
        let fresh = Set(items.map { IdentityKey($0.identity) })
        var stale = (partitionMembers!.members[partition] ?? []).filter { !fresh.contains($0) }
        // Places first, then the change: what the account answers depended on is read before it.
        // Access tokens a whole read leaves in the store keep their places apart from the other
        // items: read later, by home, they are numbered after the items read with the store, so
        // their order among the partition's other items says nothing (see UnreadAccessTokens).
        var others = Placement(), leftOuts = Placement()
        var placed: [(item: StoreItem, key: IdentityKey, sequence: Int, entry: Entry)] = []
        placed.reserveCapacity(items.count)
        for item in items where item.partition == partition {
            let key = IdentityKey(item.identity)
            let sequence =
                UnreadAccessTokens.leftOut.contains(type: item.type, account: item.account)
                ? leftOuts.sequence(for: item, held: entries[key], next: &nextSequence)
                : others.sequence(for: item, held: entries[key], next: &nextSequence)
            let entry = Self.entry(for: item, identity: key.identity, sequence: sequence)
            // Access tokens of a home not read yet are left for its read (what the identity held
            // before, now replaced by it, goes).
            if let unread, unread.excludes(item, entry: entry) {
                if entries[key] != nil { stale.append(key) }
                continue
            }
            placed.append((item, key, sequence, entry))
        }
        var touched = placed.map(\.entry)
        for key in stale { if let old = entries[key] { touched.append(old.entry) } }
        for new in placed { if let old = entries[new.key] { touched.append(old.entry) } }
        let probe = accountProbe(of: touched)
        for key in stale { removeEntry(key.identity) }
        for new in placed {
            removeEntry(new.key.identity)
            add(new.item, key: new.key, sequence: new.sequence, entry: new.entry)
        }
        noteAccountChanges(probe)
    }

    /// Where the items of one partition re-read go, in the order read: each keeps the place its
    /// identity held while they come in the order they had (and with the creation date they had,
    /// when known); from the first that does not, each goes after every item indexed so far.
    private struct Placement {
        var lastKept = -1
        var appending = false

        mutating func sequence(for item: StoreItem, held: Stored?, next: inout Int) -> Int {
            if !appending, let held, held.sequence > lastKept, held.created == nil || held.created == item.created {
                lastKept = held.sequence
                return held.sequence
            }
            appending = true
            defer { next += 1 }
            return next
        }
    }

    /// Forgets `partition` entirely (partition loading mode evicts it).
    mutating func removePartition(_ partition: PartitionID) {
        replacePartition(partition, with: [])
    }
}
