import CacheStore
@testable import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Another program changes a store's files while a process (a store-worker) holds the store open:
/// the holder's next save is refused with a category and remedy instead of reported done.
@Suite("SQLite files changed under an open store", .serialized)
struct FilesChangedUnderOpenStoreTests {
    /// Starts a holder, lets `change` act on the directory once it is ready, then lets it save;
    /// returns the holder's last line.
    func holderOutcome(keyFile: Bool = false, _ change: (_ path: String, _ directory: TemporaryDirectory) throws -> Void) throws -> String {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let go = directory.path("go")
        var arguments = ["hold", path, "g", go]
        if keyFile { arguments.append(directory.path("cache.key")) }
        let holder = try ChildProcess("store-worker", arguments)
        let started = Date()
        while holder.lines.last != "ready" && Date().timeIntervalSince(started) < 30 { usleep(5_000) }
        try #require(holder.lines.last == "ready", "the holder did not start")
        try change(path, directory)
        #expect(FileManager.default.createFile(atPath: go, contents: nil))
        let (status, errors) = holder.wait()
        #expect(status == 0, "holder failed: \(errors)")
        return holder.lines.last ?? ""
    }

    @Test func storeFileRenamedOver() throws {
        let outcome = try holderOutcome { path, directory in
            let other = directory.path("other.sqlite")
            do {
                let store = try SQLiteStore(path: other, accessGroups: try AccessGroups(["g"]))
                try store.save(StoreItem(accessGroup: "g", account: "other", service: "s", type: 2001, data: Data("o".utf8)))
            }
            #expect(rename(other, path) == 0)
        }
        #expect(outcome.hasPrefix("refused unavailable"), "\(outcome)")
        #expect(outcome.contains("replaced by another file"))
    }

    @Test func storeFileRemoved() throws {
        let outcome = try holderOutcome { path, _ in #expect(unlink(path) == 0) }
        #expect(outcome.hasPrefix("refused unavailable"), "\(outcome)")
        #expect(outcome.contains("was removed"))
    }

    @Test func writeAheadLogRemoved() throws {
        let outcome = try holderOutcome { path, _ in #expect(unlink(path + "-wal") == 0) }
        #expect(outcome.hasPrefix("refused unavailable"), "\(outcome)")
        #expect(outcome.contains("write-ahead log"))
    }

    @Test func writeAheadLogTruncated() throws {
        let outcome = try holderOutcome { path, _ in #expect(truncate(path + "-wal", 0) == 0) }
        #expect(outcome.hasPrefix("refused damaged"), "\(outcome)")
        #expect(outcome.contains("cut to 0 bytes"))
    }

    @Test func keyFileRemoved() throws {
        let outcome = try holderOutcome(keyFile: true) { _, directory in #expect(unlink(directory.path("cache.key")) == 0) }
        #expect(outcome.hasPrefix("refused unavailable"), "\(outcome)")
        #expect(outcome.contains("key file"))
    }

    @Test func untouchedFilesStillSave() throws {
        let outcome = try holderOutcome(keyFile: true) { _, _ in }
        #expect(outcome == "saved")
    }
}
