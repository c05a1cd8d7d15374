import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads of the items of some types (``TypeSelectingStore``): one range of `items_group_type` per
/// group and type, so the rows of other types — their pages and envelopes — are never read.
extension SQLiteStore: TypeSelectingStore {
    public func items(ofTypes types: [ItemQuery.TypeMatch]) throws -> [StoreItem] {
        var codes: [Int64] = []
        for type in types {
            let code = switch type {
            case .code(let code): Int64(code)
            case .absent: StoreSchema.absentType
            }
            if !codes.contains(code) { codes.append(code) }
        }
        if codes.isEmpty { return [] }
        // SQLite's planner takes `items_group_type` (one range per group and type) and sorts the
        // rows it finds by rowid, the store's order: far less than scanning every row of the table.
        // Not forced with INDEXED BY, which fails outright on a file whose index someone dropped.
        let sql = Self.selectItems + " WHERE access_group IN (\(groupPlaceholders)) AND type IN ("
            + Array(repeating: "?", count: codes.count).joined(separator: ", ") + ") ORDER BY rowid"
        let groups = accessGroups.all
        let bind = { (statement: SQLiteStatement) in
            var position: Int32 = 1
            for group in groups {
                _ = statement.bind(group, at: position)
                position += 1
            }
            for code in codes {
                _ = statement.bind(code, at: position)
                position += 1
            }
        }
        // Not a whole read: the damaged rows it skips are not the store's count.
        return try state.withLock { state throws in try readItems(sql, bind, on: state.connection).items }
    }
}
