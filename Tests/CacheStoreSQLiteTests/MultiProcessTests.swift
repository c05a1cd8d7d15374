import CacheStore
@testable import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

/// Real separate processes against one SQLite file.
@Suite("SQLite store across processes", .serialized)
struct MultiProcessTests {
    @Test("4 writers × 500 saves with concurrent readers: nothing lost, integrity ok")
    func concurrentWritersAndReaders() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let stopFile = directory.path("stop")
        // Create the store first so the workers race on data, not on creating the schema.
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))

        let readers = try (0..<2).map { _ in try ChildProcess("store-worker", ["read", path, "g", stopFile]) }
        let writers = try (0..<4).map { try ChildProcess("store-worker", ["write", path, "g", "\($0)", "500"]) }
        for writer in writers {
            let (status, errors) = writer.wait()
            #expect(status == 0, "writer failed: \(errors)")
            #expect(writer.lines.last == "done 500")
        }
        #expect(FileManager.default.createFile(atPath: stopFile, contents: nil))
        for reader in readers {
            let (status, errors) = reader.wait()
            #expect(status == 0, "reader failed: \(errors)")
            #expect(reader.lines.last?.hasPrefix("reads ") == true)
        }

        #expect(try store.items(matching: ItemQuery(type: 2001)).count == 2000)
        for worker in 0..<4 {
            let items = try store.items(matching: ItemQuery(account: "writer-\(worker)"))
            #expect(Set(items.map(\.service)) == Set((0..<500).map { "item-\($0)" }))
        }
        #expect(try store.integrityCheck().isEmpty)
    }

    @Test("6 processes open a schema-2 store at once, migrate it while writing, and catch up by partition: 3 rounds")
    func concurrentMigrationToPartitions() throws {
        for round in 0..<3 {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let path = directory.path("cache.sqlite")
            let stopFile = directory.path("stop")
            let group = try AccessGroups(["g"])
            try SQLiteStore(path: path, accessGroups: group).save((0..<10).map {
                StoreItem(accessGroup: "g", account: "old-\($0)", service: "s", type: 2001, data: Data("old".utf8))
            })
            try PartitionSchemaTests.makeSchemaTwo(path)

            let followers = try (0..<2).map { _ in try ChildProcess("store-worker", ["follow", path, "g", stopFile]) }
            let writers = try (0..<4).map { try ChildProcess("store-worker", ["write", path, "g", "\($0)", "100"]) }
            for writer in writers {
                let (status, errors) = writer.wait()
                #expect(status == 0, "round \(round): writer failed: \(errors)")
                #expect(writer.lines.last == "done 100")
            }
            #expect(FileManager.default.createFile(atPath: stopFile, contents: nil))
            for follower in followers {
                let (status, errors) = follower.wait()
                #expect(status == 0, "round \(round): follower failed: \(errors)")
                #expect(follower.lines.last?.hasPrefix("consistent 410 ") == true, "round \(round): \(follower.lines)")
            }

            let store = try SQLiteStore(path: path, accessGroups: group)
            #expect(try store.schemaVersion() == 3)
            let now = try #require(try store.partitionChanges(since: nil))
            #expect(now.revision.first == 400, "round \(round): one revision per committed save")
            let sinceMigration = try #require(try store.partitionChanges(since: ChangeStamp(0, now.revision.second)))
            let writerPartitions = Set((0..<4).map { PartitionID(accessGroup: "g", account: "writer-\($0)") })
            #expect(Set(sinceMigration.partitions) == writerPartitions, "round \(round): partitions untouched since the migration are not listed")
            var revisions = Set<UInt64>()
            for partition in writerPartitions {
                let read = try store.readPartition(accessGroup: "g", account: partition.account)
                #expect(read.items.count == 100)
                #expect((1...400).contains(read.revision.first))
                revisions.insert(read.revision.first)
            }
            #expect(revisions.contains(400), "the last commit's partition holds the current revision")
            #expect(try store.readPartition(accessGroup: "g", account: "old-3").revision.first == 0)
            #expect(try store.partitions(withLookupKey: "old-3") == nil, "the migrated group held items: incomplete until declared")
            #expect(try store.integrityCheck().isEmpty)
        }
    }

    @Test("a writer killed with SIGKILL mid-batch 20 times: no partial batch, every acknowledged batch kept")
    func killedWriterLeavesNoPartialBatch() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let batchSize = 400
        var acknowledged = 0
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            let writer = try ChildProcess("store-worker", ["batches", path, "g\(round)", "\(batchSize)"])
            // Let it commit at least one batch, then kill it at a random moment of a later one.
            let deadline = Date().addingTimeInterval(30)
            while writer.lines.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
            Thread.sleep(forTimeInterval: Double.random(in: 0.0...0.05, using: &generator))
            writer.kill()
            writer.wait()  // every line it wrote before dying has been read
            let committed = writer.lines.filter { $0.hasPrefix("committed ") }.count
            #expect(committed >= 1, "round \(round): the writer never committed")
            acknowledged += committed

            // The store opens, and each batch is all there or not there at all.
            let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g\(round)"]))
            let items = try store.allItems()
            let sizes = Dictionary(grouping: items, by: { $0.generic ?? Data() }).mapValues(\.count)
            for (batch, size) in sizes {
                #expect(size == batchSize, "round \(round): batch \(String(decoding: batch, as: UTF8.self)) has \(size) items")
            }
            // Every batch the worker reported as committed is present.
            #expect(sizes.count >= committed, "round \(round): \(committed) acknowledged, \(sizes.count) present")
            #expect(sizes.count <= committed + 1)
            #expect(try store.integrityCheck().isEmpty)
        }
        #expect(acknowledged >= 20)
    }

    @Test("every commit by another process changes the stamp, also when it is checked without a query")
    func everyOtherProcessCommitChangesTheStamp() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        #expect(store.watchesWALIndex, "the WAL index header is readable")
        for round in 0..<15 {
            let before = try store.changeStamp()
            #expect(try store.changeStamp() == before, "no commit, no change")
            let writer = try ChildProcess("store-worker", ["save", path, "g", "someone", "item-\(round)"])
            #expect(writer.wait().status == 0)
            #expect(try store.changeStamp() != before, "round \(round)")
            #expect(try store.items(matching: ItemQuery(account: "someone")).count == round + 1)
        }
    }

    @Test("a commit by another process changes the stamp and is visible to the next query")
    func otherProcessCommitsAreSeen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups(["g"]))
        _ = try store.allItems()
        let before = try store.changeStamp()
        #expect(try store.changeStamp() == before)

        let writer = try ChildProcess("store-worker", ["save", path, "g", "someone", "something"])
        let (status, errors) = writer.wait()
        #expect(status == 0, "\(errors)")

        #expect(try store.changeStamp() != before)
        #expect(try store.items(matching: ItemQuery(account: "someone")).count == 1)
    }
}
