import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whole-store reads that leave items out (``LeftOutItems``), and the reads of those items by
/// account prefix: one index range of `items_identity` per call.
extension SQLiteStore: SplitReadingStore {
    public func readAllItems(chunkSize: Int, leavingOut leftOut: LeftOutItems, into receive: ([StoreItem]) -> Void) throws {
        // Still a scan in rowid order: the rows left out are skipped on their type and account,
        // the first columns of a row, so their payloads (and overflow pages) are never read.
        let split = Self.selectItems + " NOT INDEXED WHERE access_group IN (\(groupPlaceholders))"
            + " AND NOT \(Self.leftOutCondition(leftOut)) ORDER BY rowid"
        let bind = binder(leftOut, accountRange: nil)
        try state.withLock { state throws in
            let damaged = try readChunks(split, bind, size: max(1, chunkSize), on: state.connection, into: receive)
            state.damagedInLastSplitRead = damaged
            state.damagedInLastFullRead = damaged
        }
    }

    public func leftOutItems(_ leftOut: LeftOutItems, accountPrefix: String?) throws -> [StoreItem] {
        var sql = Self.selectItems + " WHERE access_group IN (\(groupPlaceholders)) AND \(Self.leftOutCondition(leftOut))"
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
        let bind = binder(leftOut, accountRange: accountPrefix.flatMap { prefix in upperBound.map { (prefix, $0) } })
        return try state.withLock { state throws in
            let read = try readItems(sql, bind, on: state.connection)
            if accountPrefix == nil { state.damagedInLastFullRead = state.damagedInLastSplitRead + read.damaged }
            return read.items
        }
    }

    /// The SQL condition a row left out meets: `type` one of the types and `account` plain, by the
    /// connection's `tokencache_plain` (see `shim.h`), evaluated only for rows of those types.
    /// (`lower`, `length` and `trim` for the same test cost the read of 10,000 accounts about
    /// 90 ms more, a `GLOB` 600 ms.) Its placeholders follow the groups'.
    static func leftOutCondition(_ leftOut: LeftOutItems) -> String {
        let types = leftOut.types.isEmpty ? "NULL" : Array(repeating: "?", count: leftOut.types.count).joined(separator: ", ")
        return "(type IN (\(types)) AND tokencache_plain(account))"
    }

    /// Binds the open groups, the left-out types, then the account range when there is one.
    private func binder(_ leftOut: LeftOutItems, accountRange: (from: String, below: String)?) -> (SQLiteStatement) -> Void {
        let groups = accessGroups.all
        return { statement in
            var position: Int32 = 1
            for group in groups {
                _ = statement.bind(group, at: position)
                position += 1
            }
            for type in leftOut.types {
                _ = statement.bind(Int64(type), at: position)
                position += 1
            }
            if let (from, below) = accountRange {
                _ = statement.bind(from, at: position)
                _ = statement.bind(below, at: position + 1)
            }
        }
    }
}
