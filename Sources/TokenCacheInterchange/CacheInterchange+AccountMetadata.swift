import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

/// MSAL ObjC's per-app account-metadata item (type 5001) is the interchange form of the accounts'
/// own sign-in items (type 9001, see ``AccountSignIn``): exports fold those into it, imports of it
/// are filed per account.
extension CacheInterchange {
    /// `items` with every account's own sign-in item and every 5001 item the filing handles replaced
    /// by one 5001 item per access group and app, as MSAL ObjC keeps it, after the other items.
    static func foldingAccountMetadata(_ items: [StoreItem]) -> [StoreItem] {
        guard items.contains(where: { $0.type == ItemTypeCode.accountSignIn || $0.type == ItemTypeCode.accountMetadata }) else { return items }
        return items.filter { !AccountMetadataFiling.isMerged($0) } + AccountMetadataFiling.merged(items)
    }

    /// Deletes of the accounts' own sign-in items that an imported 5001 item's entries replace: the
    /// file's state wins, as for every other item it holds.
    func signInsReplaced(by imported: [StoreItem]) throws -> [StoreOperation] {
        var deletes: [StoreOperation] = []
        for item in imported where item.type == ItemTypeCode.accountMetadata {
            guard let metadata = try? AccountMetadata(storeItem: item), AccountMetadataFiling.files(metadata, at: item.identity),
                !metadata.accounts.isEmpty
            else { continue }
            let homes = Set(metadata.accounts.keys.map { ItemKey.normalized($0) })
            let query = ItemQuery(accessGroup: item.accessGroup, service: metadata.clientId, type: .code(ItemTypeCode.accountSignIn))
            for own in try store.items(matching: query) {
                guard let signIn = try? AccountSignIn(storeItem: own), homes.contains(signIn.homeAccountKey) else { continue }
                deletes.append(.delete(own.identity.query))
            }
        }
        return deletes
    }
}
