import CacheStore
import TokenCacheJSON
import TokenCacheSchema

/// The part of a cache one serialized blob holds, as the MSAL SDKs partition their caches:
/// MSAL.NET's `SuggestedCacheKey`, msal-node's partition manager, MSAL Go's `PartitionKey`.
public enum MSALPartition: Sendable, Hashable {
    /// Every entry.
    case all
    /// One account: credentials and account records of this home account id, plus all app metadata.
    case account(homeAccountId: String)
    /// App tokens of one client: its credentials without a home account, plus its app metadata.
    case client(clientId: String)

    /// The partition in the account attribute of the items that keep a blob's unknown nodes.
    var descriptor: String {
        switch self {
        case .all: "all"
        case .account(let id): "account:" + ItemKey.normalized(id)
        case .client(let id): "client:" + ItemKey.normalized(id)
        }
    }

    /// Whether the entry of `section` belongs to the partition.
    public func contains(_ entry: JSONObject, in section: MSALSection) -> Bool {
        let home = entry[Credential.Field.homeAccountId]?.stringValue.map { ItemKey.normalized($0) } ?? ""
        switch self {
        case .all:
            return true
        case .account(let id):
            return section == .appMetadata || (!home.isEmpty && home == ItemKey.normalized(id))
        case .client(let id):
            let client = entry[Credential.Field.clientId]?.stringValue.map { ItemKey.normalized($0) }
            guard client == ItemKey.normalized(id) else { return false }
            return section == .appMetadata || (section != .account && home.isEmpty)
        }
    }
}
