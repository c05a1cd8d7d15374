import CacheStore
import Foundation

/// Whole-store reads that leave items out (``LeftOutItems``), and the reads of those items by
/// account prefix: one index range of `items_identity` per call.
extension SQLiteStore: SplitReadingStore {
    public func readAllItems(chunkSize: Int, leavingOut leftOut: LeftOutItems, into receive: ([StoreItem]) -> Void) throws {
        let (sql, bind) = select(ItemQuery())
        let leftOutSQL = Self.leftOutCondition(leftOut)
        // Still a scan in rowid order: the rows left out are skipped on their type and account,
        // the first columns of a row, so their payloads (and overflow pages) are never read.
        let split = sql.replacingOccurrences(of: " ORDER BY rowid", with: " AND NOT (\(leftOutSQL)) ORDER BY rowid")
        let size = max(1, chunkSize)
        try state.withLock { state throws in
            var chunk: [StoreItem] = []
            chunk.reserveCapacity(size)
            let damaged = try withRows(split, bind, on: state.connection) { rows throws in
                while try rows.next(into: &chunk) {
                    if chunk.count == size {
                        receive(chunk)
                        chunk.removeAll(keepingCapacity: true)
                    }
                }
                return rows.damaged
            }
            state.damagedInLastSplitRead = damaged
            state.damagedInLastFullRead = damaged
            if !chunk.isEmpty { receive(chunk) }
        }
    }

    public func leftOutItems(_ leftOut: LeftOutItems, accountPrefix: String?) throws -> [StoreItem] {
        let leftOutSQL = Self.leftOutCondition(leftOut)
        var sql = "SELECT access_group, account, service, type, generic, data, created, modified, envelope FROM items"
            + " WHERE access_group IN (\(groupPlaceholders)) AND \(leftOutSQL)"
        var upperBound: String?
        if let accountPrefix {
            if accountPrefix.isEmpty { return try leftOutItems(leftOut, accountPrefix: nil) }
            guard LeftOutItems.mayStartPlainAccount(accountPrefix) else { return [] }
            var bytes = Array(accountPrefix.utf8)
            guard bytes[bytes.count - 1] < 0x7F else {
                return try leftOutItems(leftOut, accountPrefix: nil).filter { $0.account.utf8.starts(with: accountPrefix.utf8) }
            }
            // The accounts from the prefix (included) to the prefix with its last byte raised
            // (excluded), which stays one byte of ASCII.
            bytes[bytes.count - 1] += 1
            upperBound = String(decoding: bytes, as: UTF8.self)
            sql += " AND account >= ? AND account < ?"
        }
        sql += " ORDER BY rowid"
        let groups = accessGroups.all
        let bind: (SQLiteStatement) -> Void = { statement in
            var position: Int32 = 1
            for group in groups {
                _ = statement.bind(group, at: position)
                position += 1
            }
            if let accountPrefix, let upperBound {
                _ = statement.bind(accountPrefix, at: position)
                _ = statement.bind(upperBound, at: position + 1)
            }
        }
        return try state.withLock { state throws in
            let read = try readItems(sql, bind, on: state.connection)
            if accountPrefix == nil { state.damagedInLastFullRead = state.damagedInLastSplitRead + read.damaged }
            return read.items
        }
    }

    /// The SQL condition a row left out meets: `type` one of the types (written as numbers: they
    /// are integers, nothing to bind) and `account` plain, by the connection's `tokencache_plain`
    /// (see `shim.h`), evaluated only for rows of those types. (`lower`, `length` and `trim` for
    /// the same test cost this read about 90 ms more on 86,666 access tokens, a `GLOB` 600 ms.)
    static func leftOutCondition(_ leftOut: LeftOutItems) -> String {
        let types = leftOut.types.isEmpty ? "NULL" : leftOut.types.map(String.init).joined(separator: ", ")
        return "(type IN (\(types)) AND tokencache_plain(account))"
    }
}
