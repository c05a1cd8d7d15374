import CacheStore
import CacheStoreSQLite
import CacheStoreSecretService
import Foundation
import Testing
import TokenCache
import TokenCacheInterchange
import TokenCacheSchema
@testable import tokencache

/// The exit status follows from the error's category alone, and every error keeps the status the
/// CLI gave it before categories existed.
@Suite struct ExitStatusTests {
    @Test func everyCategoryHasOneStatus() {
        #expect(status(for: .notFound) == 1)
        #expect(status(for: .badInput) == 65)
        #expect(status(for: .damaged) == 65)
        #expect(status(for: .unavailable) == 74)
        #expect(status(for: .permission) == 74)
        #expect(status(for: .conflict) == 74)
        #expect(status(for: .internal) == 74)
    }

    @Test func errorsOfEveryModuleKeepTheirStatus() {
        let sqlite = SQLiteError(code: 11, extendedCode: 11, message: "m", operation: "o", path: "/p")
        let busy = SQLiteError(code: 5, extendedCode: 5, message: "m", operation: "o", path: "/p")
        let expected: [(any Error, Int32)] = [
            (CacheStoreError.invalidItem(reason: "r"), 65),
            (SQLiteStoreError.notATokenCacheStore(path: "/p"), 65),
            (SQLiteStoreError.newerSchema(path: "/p", found: 2, supported: 1), 65),
            (SQLiteStoreError.sqlite(sqlite), 65),
            (SQLiteStoreError.sqlite(busy), 74),
            (SQLiteStoreError.cannotCreate(path: "/p", errno: 2), 74),
            (SecretServiceError.corruptPartition(accessGroup: "g", account: "a", reason: "r"), 65),
            (SecretServiceError.noSessionBus, 74),
            (SecretServiceError.collectionNotFound("c"), 74),
            (SecretServiceError.collectionLocked("c"), 74),
            (InterchangeError.cannotRead(path: "/p", reason: "r"), 74),
            (InterchangeError.unrecognizedFormat(source: "s", expected: "e"), 65),
            (SchemaError.missingField("f", item: nil), 65),
            (TokenCacheError.invalidTokenResponse("r"), 65),
        ]
        for (error, code) in expected {
            #expect(status(for: error) == code, "\(error)")
        }
    }
}
