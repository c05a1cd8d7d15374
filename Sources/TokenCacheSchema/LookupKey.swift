@_spi(Hex) import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The lookup keys the token cache files partitions under (``StoreOperation/setLookupKeys(_:keys:)``),
/// so a store can answer "which partitions hold this username" without a scan.
///
/// A key is `u:` and the lower-case hex SHA-256 of the normalized username: the index a store keeps
/// holds no username in clear. A partition's keys are those of the account records it holds and, for
/// legacy ADAL entries, of the user id their account attribute encodes.
public enum LookupKey {
    /// The key of a username (any case, surrounding white space ignored).
    public static func username(_ username: String) -> String {
        var normalized = ItemKey.normalized(username)
        return "u:" + lowercaseHex(normalized.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) })
    }

    /// Whether items of this keychain type can give their partition a key: account records and
    /// untyped items (legacy ADAL entries).
    public static func mayCarryKey(type: UInt32?) -> Bool {
        guard let type else { return true }
        return AccountType(rawValue: type) != nil
    }

    /// The key `item` gives its partition: its account record's username, or its legacy ADAL entry's
    /// user id; `nil` for every other item and for a payload that cannot be read.
    public static func key(of item: StoreItem) -> String? {
        guard mayCarryKey(type: item.type) else { return nil }
        if item.type == nil {
            guard item.generic == Data(UnifiedItem.legacyADALGeneric.utf8) else { return nil }
            // As the engine files the entry: the account attribute decoded, else the archived user id.
            let userId = LegacyCacheKey.userId(ofAccount: item.account) ?? (try? LegacyTokenCacheItem(archive: item.data))?.userId
            guard let userId, !ItemKey.normalized(userId).isEmpty else { return nil }
            return username(userId)
        }
        guard case .account(let account)? = try? UnifiedItem(item), let name = account.username,
            !ItemKey.normalized(name).isEmpty
        else { return nil }
        return username(name)
    }

    /// `batch` followed by a ``StoreOperation/setLookupKeys(_:keys:)`` for every partition whose
    /// key-carrying items (see ``mayCarryKey(type:)``) it saves or deletes, holding the keys of what
    /// the partition will hold after the batch.
    ///
    /// - Parameters:
    ///   - current: the key-carrying items a partition holds before the batch, each with its key
    ///     (`nil` for one that gives none).
    ///   - partitions: the partitions a delete that names no single partition may touch (the
    ///     store's groups for a query without a group).
    public static func appendingKeys(
        to batch: [StoreOperation],
        current: (PartitionID) throws -> [ItemIdentity: String?],
        partitions: (ItemQuery) throws -> [PartitionID]
    ) rethrows -> [StoreOperation] {
        var touched: [PartitionID: [ItemIdentity: String?]] = [:]
        var order: [PartitionID] = []
        func content(_ partition: PartitionID) throws -> [ItemIdentity: String?] {
            if let known = touched[partition] { return known }
            order.append(partition)
            return try current(partition)
        }
        for operation in batch {
            switch operation {
            case .save(let item):
                guard mayCarryKey(type: item.type) else { continue }
                var items = try content(item.partition)
                items[item.identity] = key(of: item)
                touched[item.partition] = items
            case .delete(let query):
                if case .code(let type) = query.type, !mayCarryKey(type: type) { continue }
                let named: [PartitionID] =
                    if let group = query.accessGroup, let account = query.account {
                        [PartitionID(accessGroup: group, account: account)]
                    } else {
                        try partitions(query)
                    }
                for partition in named {
                    var items = try content(partition)
                    for identity in items.keys where query.matches(identity) { items[identity] = nil }
                    touched[partition] = items
                }
            case .setLookupKeys, .declareLookupKeysComplete:
                continue
            }
        }
        return batch + order.map { partition in
            let keys = Set(touched[partition]!.values.compactMap { $0 })
            return .setLookupKeys(partition, keys: keys.sorted())
        }
    }
}

extension ItemQuery {
    /// Whether an item with this identity matches the query. A query naming `generic` cannot be
    /// told from the identity: it is taken as not matching, which at worst leaves a stale key (the
    /// index's readers check what they find), never drops a key still needed.
    fileprivate func matches(_ identity: ItemIdentity) -> Bool {
        guard generic == nil else { return false }
        return matches(StoreItem(
            accessGroup: identity.accessGroup, account: identity.account, service: identity.service,
            generic: nil, type: identity.type, data: Data()))
    }
}

extension LookupKey {
    /// `batch` with the lookup keys it changes (see ``appendingKeys(to:current:partitions:)``),
    /// planned on `items`, the whole content of `store` just before the batch.
    public static func appendingKeys(to batch: [StoreOperation], over items: [StoreItem], in store: any ItemStore) -> [StoreOperation] {
        guard store.lookupKeyIndex != nil, batch.contains(where: changesKeys) else { return batch }
        var byPartition: [PartitionID: [ItemIdentity: String?]] = [:]
        for item in items where mayCarryKey(type: item.type) {
            byPartition[item.partition, default: [:]][item.identity] = key(of: item)
        }
        return appendingKeys(
            to: batch,
            current: { byPartition[$0] ?? [:] },
            partitions: { query in
                // A group but no account, or neither: the partitions holding a match.
                guard let account = query.account else { return Array(Set(items.filter(query.matches).map(\.partition))) }
                return (query.accessGroup.map { [$0] } ?? store.accessGroups.all).map { PartitionID(accessGroup: $0, account: account) }
            })
    }

    /// Whether an operation may change a partition's lookup keys.
    public static func changesKeys(_ operation: StoreOperation) -> Bool {
        switch operation {
        case .save(let item): mayCarryKey(type: item.type)
        case .delete(let query): if case .code(let type) = query.type { mayCarryKey(type: type) } else { true }
        case .setLookupKeys, .declareLookupKeysComplete: false
        }
    }
}

extension ItemStore {
    /// Applies `batch` as ``ItemStore/apply(_:)`` does and, when the store keeps lookup keys and the
    /// batch changes account records or legacy ADAL entries, sets the keys of the partitions it
    /// changes in the same atomic batch (planned under the store's write lock on its content: a
    /// whole read, so writers of many items at once — imports — use it, not hot paths).
    @discardableResult
    public func applyKeepingLookupKeys(_ batch: [StoreOperation]) throws -> BatchResult {
        guard lookupKeyIndex != nil, batch.contains(where: LookupKey.changesKeys) else { return try apply(batch) }
        return try applyPlanned { _, allItems in LookupKey.appendingKeys(to: batch, over: try allItems(), in: self) }
    }
}
