import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

/// Partition loading mode names an account's partitions from what it knows: the known clouds'
/// hosts and the account's usernames. A store that can find items by their attributes
/// (`SplitReadingStore`: SQLite, one index range each) is asked for the rest, so a lookup by home
/// account finds what a whole read would: the account's items under a host no known cloud has (a
/// B2C or ADFS authority), and legacy ADAL entries that carry its home account id but are filed
/// under a username none of its records has.
extension TokenCache {
    /// The item types of an account's partitions: credentials and account records.
    private static let homeItemTypes = LeftOutItems(
        types: CredentialType.allCases.map(\.typeCode) + AccountType.allCases.map(\.rawValue))

    /// The partitions of home account `home` (normalized) the store finds beyond those named: every
    /// partition under `home-` (an account attribute is `home-environment`; a longer home that
    /// shares the prefix only adds a partition, never an answer), and with `legacy` every legacy
    /// entry's partition whose archive names `home`. With `appMetadata`, the app metadata partitions
    /// of the hosts found. Stores that cannot search by attributes find nothing.
    func foundPartitions(ofHome home: String, legacy: Bool, appMetadata: Bool) throws -> [PartitionID] {
        guard let searchable = store as? any SplitReadingStore, !home.isEmpty else { return [] }
        var found: [PartitionID] = []
        var seen = Set<PartitionID>()
        let prefix = home + "-"
        for item in try searchable.leftOutItems(Self.homeItemTypes, accountPrefix: prefix) where seen.insert(item.partition).inserted {
            found.append(item.partition)
            if appMetadata {
                let host = PartitionID(accessGroup: item.accessGroup, account: String(item.account.utf8.dropFirst(prefix.utf8.count))!)
                if seen.insert(host).inserted { found.append(host) }
            }
        }
        guard legacy else { return found }
        // Every legacy entry is read: a store holds few (ADAL wrote one per app and user).
        for item in try store.items(matching: ItemQuery(generic: LegacyCacheKey.generic, type: .absent)) where !seen.contains(item.partition) {
            guard let entry = try? LegacyTokenCacheItem(archive: item.data), ItemKey.normalized(entry.homeAccountId ?? "") == home else { continue }
            seen.insert(item.partition)
            found.append(item.partition)
        }
        return found
    }
}
