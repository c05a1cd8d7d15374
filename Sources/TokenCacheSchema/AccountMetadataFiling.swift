import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Moves the entries of MSAL ObjC's per-client account-metadata items (type 5001, account
/// `authority_map`) into each account's own ``AccountSignIn`` item, and folds them back into one
/// 5001 item per client for exports and display.
///
/// An entry is filed when its map key is its `home_account_id`, its `client_id` is the item's, and
/// the store holds an account record of that home account (whose environment names the partition).
/// An account that already has its own item keeps it (it is newer: every write since goes there),
/// and the entry is dropped. What cannot be filed stays in the 5001 item, with the principal fields.
///
/// The batch puts the new items before the rewrite of the 5001 item: a backend that applies a batch
/// partition by partition (Redis in a cluster) and stops part way leaves both the entry and its copy,
/// which read the same; the next filing finishes. Filing again changes nothing.
public enum AccountMetadataFiling {
    /// Whether the filing handles `metadata`, stored at `identity`: only the item MSAL ObjC writes
    /// (account `authority_map`, service = its client id).
    public static func files(_ metadata: AccountMetadata, at identity: ItemIdentity) -> Bool {
        identity.account == AccountMetadata.keyAccount && identity.service == metadata.clientId
    }

    /// Whether the entry under `key` can be rebuilt exactly from an ``AccountSignIn``.
    public static func isFileable(key: String, entry: AccountMetadata.Entry, clientId: String) -> Bool {
        entry.homeAccountId == key && entry.clientId == clientId
    }

    /// The batch that files the entries of every 5001 item among `items` (a whole store's content,
    /// in store order); empty when there is nothing to file.
    public static func operations(for items: [StoreItem]) -> [StoreOperation] {
        var environments: [String: String] = [:]
        var existing: Set<SignInKey> = []
        var legacy: [(metadata: AccountMetadata, identity: ItemIdentity)] = []
        for item in items {
            guard let type = item.type else { continue }
            if AccountType(typeCode: type) != nil {
                guard let account = IndexingScanner.account(item.data) ?? (try? Account(storeItem: item)),
                    let home = account.homeAccountId, let environment = account.environment
                else { continue }
                let key = ItemKey.normalized(home)
                if environments[key] == nil { environments[key] = environment }
            } else if type == ItemTypeCode.accountSignIn, let signIn = try? AccountSignIn(storeItem: item) {
                existing.insert(SignInKey(accessGroup: item.accessGroup, clientId: signIn.clientId, home: signIn.homeAccountKey))
            } else if type == ItemTypeCode.accountMetadata, let metadata = try? AccountMetadata(storeItem: item),
                files(metadata, at: item.identity)
            {
                legacy.append((metadata, item.identity))
            }
        }
        return operations(
            filing: legacy, environment: { environments[$0] },
            hasOwnItem: { existing.contains(SignInKey(accessGroup: $0, clientId: $1, home: $2)) })
    }

    /// The batch that files the entries of `legacy` (5001 items the filing handles, with their
    /// identities), for a caller that holds only part of the store: `environment` gives the
    /// environment of a home account's first account record (normalized home account id; `nil`
    /// when there is none), `hasOwnItem` whether an account already has its own item in an access
    /// group for a client. With `homes`, only the entries of those (normalized) home accounts are
    /// filed; the others stay. Empty when there is nothing to file.
    public static func operations(
        filing legacy: [(metadata: AccountMetadata, identity: ItemIdentity)], homes: Set<String>? = nil,
        environment: (_ home: String) -> String?,
        hasOwnItem: (_ accessGroup: String, _ clientId: String, _ home: String) -> Bool
    ) -> [StoreOperation] {
        var filed: Set<SignInKey> = []
        var saves: [StoreOperation] = []
        var rewrites: [StoreOperation] = []
        for (metadata, identity) in legacy {
            var remaining = metadata
            for (key, entry) in metadata.accounts.sorted(by: { $0.key < $1.key }) {
                let home = ItemKey.normalized(key)
                if let homes, !homes.contains(home) { continue }
                let signInKey = SignInKey(accessGroup: identity.accessGroup, clientId: metadata.clientId, home: home)
                if filed.contains(signInKey) || hasOwnItem(identity.accessGroup, metadata.clientId, home) {
                    remaining.accounts[key] = nil
                } else if isFileable(key: key, entry: entry, clientId: metadata.clientId), let environment = environment(home) {
                    let signIn = AccountSignIn(entry: entry, environment: environment)
                    guard let item = try? signIn.storeItem(accessGroup: identity.accessGroup) else { continue }
                    saves.append(.save(item))
                    filed.insert(signInKey)
                    remaining.accounts[key] = nil
                }
            }
            guard remaining.accounts.count != metadata.accounts.count else { continue }
            let principal = [remaining.principalHomeAccountId, remaining.principalUsername, remaining.principalAccountEnvironment]
            if remaining.accounts.isEmpty && principal.allSatisfy({ $0 == nil }) {
                rewrites.append(.delete(identity.query))
            } else if let item = try? remaining.storeItem(accessGroup: identity.accessGroup) {
                rewrites.append(.save(item))
            }
        }
        return saves + rewrites
    }

    /// Each client's account metadata as MSAL ObjC keeps it, one item per access group and client:
    /// the 5001 items among `items` with their entries overridden by the accounts' own items, and a
    /// 5001 item made for a client that has only those. The other items are left out; the result
    /// is in the order each group and client first appears.
    public static func merged(_ items: [StoreItem]) -> [StoreItem] {
        var order: [GroupClient] = []
        var legacy: [GroupClient: AccountMetadata] = [:]
        var signIns: [GroupClient: [AccountSignIn]] = [:]
        for item in items {
            if item.type == ItemTypeCode.accountSignIn, let signIn = try? AccountSignIn(storeItem: item) {
                let key = GroupClient(accessGroup: item.accessGroup, clientId: signIn.clientId)
                if legacy[key] == nil && signIns[key] == nil { order.append(key) }
                signIns[key, default: []].append(signIn)
            } else if item.type == ItemTypeCode.accountMetadata, let metadata = try? AccountMetadata(storeItem: item),
                files(metadata, at: item.identity)
            {
                let key = GroupClient(accessGroup: item.accessGroup, clientId: metadata.clientId)
                if legacy[key] == nil && signIns[key] == nil { order.append(key) }
                legacy[key] = metadata
            }
        }
        return order.compactMap { key in
            try? AccountMetadata.merging(legacy: legacy[key], clientId: key.clientId, signIns: signIns[key] ?? [])
                .storeItem(accessGroup: key.accessGroup)
        }
    }

    /// Whether `item` is one ``merged(_:)`` stands for: a 5001 item it handles or an account's own item.
    public static func isMerged(_ item: StoreItem) -> Bool {
        if item.type == ItemTypeCode.accountSignIn { return (try? AccountSignIn(storeItem: item)) != nil }
        guard item.type == ItemTypeCode.accountMetadata, let metadata = try? AccountMetadata(storeItem: item) else { return false }
        return files(metadata, at: item.identity)
    }

    private struct SignInKey: Hashable {
        let accessGroup: String
        let clientId: String
        let home: String
    }

    private struct GroupClient: Hashable {
        let accessGroup: String
        let clientId: String
    }
}

extension ItemStore {
    /// Files the entries of the store's account-metadata items per account
    /// (``AccountMetadataFiling``), planned on the whole store under its write lock, so that many
    /// processes can do it at once.
    @discardableResult
    public func fileAccountMetadata() throws -> BatchResult {
        try applyPlanned { _, allItems in AccountMetadataFiling.operations(for: try allItems()) }
    }
}

extension AccountMetadata {
    /// The client's metadata as MSAL ObjC keeps it: `legacy` (its 5001 item, when there is one)
    /// with the entry of every account that has its own item replaced by that item's (of several,
    /// the one whose state ranks first: ``AccountSignIn/outranks(_:)``).
    public static func merging(legacy: AccountMetadata?, clientId: String, signIns: [AccountSignIn]) -> AccountMetadata {
        var merged = legacy ?? AccountMetadata(clientId: clientId)
        var chosen: [String: AccountSignIn] = [:]
        for signIn in signIns {
            if let known = chosen[signIn.homeAccountKey], !signIn.outranks(known) { continue }
            chosen[signIn.homeAccountKey] = signIn
        }
        if !chosen.isEmpty {
            for key in merged.accounts.keys where chosen[ItemKey.normalized(key)] != nil { merged.accounts[key] = nil }
        }
        for signIn in chosen.values { merged.accounts[signIn.entry.homeAccountId] = signIn.entry }
        return merged
    }
}
