import CSQLite
import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

@Suite struct SQLiteErrorCategoryTests {
    private func error(_ extended: Int32) -> SQLiteError {
        SQLiteError(code: extended & 0xFF, extendedCode: extended, message: "m", operation: "o", path: "/p")
    }

    @Test func resultCodesAreNamed() {
        #expect(SQLiteError.ResultCode.busy.rawValue == SQLITE_BUSY)
        #expect(SQLiteError.ResultCode.corrupt.rawValue == SQLITE_CORRUPT)
        #expect(SQLiteError.ResultCode.notADatabase.rawValue == SQLITE_NOTADB)
        #expect(SQLiteError.ResultCode.ioErrorAccess.primary == .ioError)
        #expect(error(SQLITE_IOERR | (4 << 8)).resultCode == .ioError)
        #expect(SQLiteError.ResultCode.busy.description == "database is locked")
    }

    @Test func categoriesFollowTheResultCode() {
        #expect(error(SQLITE_CORRUPT).category == .damaged)
        #expect(error(SQLITE_NOTADB).category == .damaged)
        #expect(error(SQLITE_BUSY).category == .unavailable)
        #expect(error(SQLITE_FULL).category == .unavailable)
        #expect(error(SQLITE_READONLY).category == .permission)
        #expect(error(SQLITE_IOERR | (13 << 8)).category == .permission)
        #expect(error(SQLITE_IOERR | (4 << 8)).category == .unavailable)
        #expect(error(SQLITE_MISUSE).category == .internal)
        #expect(SQLiteStoreError.cannotCreate(path: "/p", errno: EACCES).category == .permission)
        #expect(SQLiteStoreError.cannotCreate(path: "/p", errno: ENOENT).category == .unavailable)
        #expect(SQLiteStoreError.newerSchema(path: "/p", found: 9, supported: 1).remedy == "upgrade tokencache")
    }

    @Test func aFileOfAnotherKindIsDamaged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        #expect(writeNoiseFile(atPath: path))
        #expect {
            _ = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        } throws: { error in
            (error as? any CategorizedError)?.category == .damaged
        }
    }
}
