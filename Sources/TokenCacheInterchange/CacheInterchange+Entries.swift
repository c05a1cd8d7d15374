import CacheStore
import Foundation

extension CacheInterchange {
    /// Removes the items the entries of an MSAL JSON document stand for, in every access group of
    /// the store, in one atomic batch; returns how many items were removed.
    ///
    /// - Throws: ``InterchangeError`` for a malformed document (nothing removed).
    public func removeEntries(_ document: Data, source: String) throws -> Int {
        let decoded = try ImportDecoder.decode(document, source: source, format: .msalJSON, accessGroup: accessGroup)
        let queries = decoded.items.map { item in
            ItemQuery(account: item.account, service: item.service, type: .init(item.type))
        }
        guard !queries.isEmpty else { return 0 }
        return try store.apply(queries.map(StoreOperation.delete)).deleted
    }
}
