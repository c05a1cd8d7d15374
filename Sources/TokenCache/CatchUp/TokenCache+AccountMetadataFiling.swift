import CacheStore
import TokenCacheSchema

/// Partition loading mode files MSAL ObjC's per-app account-metadata items (type 5001, account
/// `authority_map`) per account as a whole read does (``AccountMetadataFiling``), without reading
/// the whole store: once a lookup or a save has loaded an app's item, the partitions of the
/// accounts it names are loaded and its entries filed in planned batches (under the store's write
/// lock, on partitions current as of the commit), so many processes can do it at once and filing
/// again changes nothing.
extension TokenCache {
    /// How many accounts one filing batch handles: an item of many accounts (a server store written
    /// before accounts kept their own state) is filed in batches of this many, each loading only
    /// their partitions; each batch rewrites the item with what is left.
    static let filingBatchAccounts = 64

    /// Files the entries of the account-metadata items the index holds, unless this engine filed
    /// each as it is now already (an entry no account record claims stays in its item, as a whole
    /// read leaves it). A failure is forgotten: the items are filed the next time they are met.
    func fileLoadedAccountMetadata() {
        guard case .partitions = configuration.loading else { return }
        let due: [ItemIdentity: AccountMetadata] = state.withLock { state in
            guard !state.index.accountMetadata.isEmpty else { return [:] }
            var due: [ItemIdentity: AccountMetadata] = [:]
            for (metadata, identity) in state.index.accountMetadata.values
            where !metadata.accounts.isEmpty && AccountMetadataFiling.files(metadata, at: identity) && state.filedMetadata[identity] != metadata {
                // Claimed before the filing: another thread meeting the item meanwhile leaves it.
                state.filedMetadata[identity] = metadata
                due[identity] = metadata
            }
            return due
        }
        guard !due.isEmpty else { return }
        var homes: [String] = []
        var seen = Set<String>()
        for metadata in due.values {
            for key in metadata.accounts.keys.sorted() where seen.insert(ItemKey.normalized(key)).inserted {
                homes.append(ItemKey.normalized(key))
            }
        }
        do {
            for start in stride(from: 0, to: homes.count, by: Self.filingBatchAccounts) {
                let batch = Array(homes[start..<min(homes.count, start + Self.filingBatchAccounts)])
                let wanted = Set(batch)
                _ = try commitPlannedInLoadedPartitions(keepingLookupKeys: false, need: .homeAccounts(batch)) { index in
                    (index.accountMetadataFiling(homes: wanted), ())
                }
            }
            // What is left of each item now (its rewrite, or nothing) is filed as far as it goes.
            state.withLock { state in
                for identity in due.keys {
                    state.filedMetadata[identity] = state.index.accountMetadata.values.first { $0.identity == identity }?.metadata
                }
            }
        } catch {
            state.withLock { state in
                for identity in due.keys { state.filedMetadata[identity] = nil }
            }
        }
    }
}

extension CacheIndex {
    /// The batch that files the entries of `homes` (normalized home account ids) of the index's
    /// account-metadata items per account (see ``AccountMetadataFiling``), planned on what the
    /// index holds: each account's environment is that of its first account record.
    func accountMetadataFiling(homes: Set<String>) -> [StoreOperation] {
        let legacy = accountMetadata.values
            .filter { AccountMetadataFiling.files($0.metadata, at: $0.identity) }
            .sorted { ($0.identity.accessGroup, $0.identity.service) < ($1.identity.accessGroup, $1.identity.service) }
        return AccountMetadataFiling.operations(
            filing: legacy, homes: homes,
            environment: { accounts(homeAccountId: $0).first?.account.environment },
            hasOwnItem: { group, clientId, home in
                accountSignIns(clientId: clientId, home: home).contains { $0.identity.accessGroup == group }
            })
    }
}
