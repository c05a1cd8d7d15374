import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

extension CacheInterchange {
    /// Removes the items the entries of an MSAL JSON document stand for, in every access group of
    /// the store, in one atomic batch; returns how many items were removed.
    ///
    /// - Throws: ``InterchangeError`` for a malformed document (nothing removed).
    public func removeEntries(_ document: Data, source: String) throws -> Int {
        let operations = try removalOperations(document, source: source)
        guard !operations.isEmpty else { return 0 }
        return try store.applyKeepingLookupKeys(operations).deleted
    }

    /// The deletes that remove the items the entries of an MSAL JSON document stand for, in every
    /// access group (for a caller that commits them itself, e.g. through the engine).
    ///
    /// - Throws: ``InterchangeError`` for a malformed document.
    public func removalOperations(_ document: Data, source: String) throws -> [StoreOperation] {
        let decoded = try ImportDecoder.decode(document, source: source, format: .msalJSON, accessGroup: accessGroup)
        return decoded.items.map { item in
            .delete(ItemQuery(account: item.account, service: item.service, type: .init(item.type)))
        }
    }
}
