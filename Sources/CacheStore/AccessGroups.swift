/// The access groups a store was opened for: the app's keychain-sharing entitlements.
///
/// Reading or writing any other group is an error (``CacheStoreError/accessGroupNotAllowed(_:allowed:)``),
/// never an empty result. The first group is where writers put new items by default.
public struct AccessGroups: Sendable, Hashable {
    /// The groups, in the order given, without duplicates. Never empty.
    public let all: [String]

    /// Creates the set. Throws ``CacheStoreError/noAccessGroups`` when `groups` is empty.
    public init(_ groups: [String]) throws(CacheStoreError) {
        var seen = Set<String>()
        let unique = groups.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { throw .noAccessGroups }
        self.all = unique
    }

    /// The group new items are written to: the first one named.
    public var primary: String { all[0] }

    /// Whether `group` is one of the allowed groups (compared byte for byte).
    public func contains(_ group: String) -> Bool {
        all.contains { sameBytes($0, group) }
    }

    /// Throws unless `group` is allowed.
    public func check(_ group: String) throws(CacheStoreError) {
        guard contains(group) else { throw .accessGroupNotAllowed(group, allowed: all) }
    }

    /// Throws unless the query's group, when it names one, is allowed.
    public func check(_ query: ItemQuery) throws(CacheStoreError) {
        if let group = query.accessGroup { try check(group) }
    }

    /// Throws unless every group the batch touches is allowed.
    public func check(_ batch: [StoreOperation]) throws(CacheStoreError) {
        for operation in batch {
            switch operation {
            case .save(let item): try check(item.accessGroup)
            case .delete(let query): try check(query)
            case .setLookupKeys(let partition, _): try check(partition.accessGroup)
            case .declareLookupKeysComplete(let group): try check(group)
            }
        }
    }
}
