import CacheStore
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import Synchronization
import Testing

/// `apply(_:ifUnchangedSince:)`: the compare-and-swap the engine's read-modify-writes rely on. Two
/// engines removing different accounts of one app at once each rewrote the app's account metadata
/// from their own reading, and the later one put back the other's account as signed in.
/// The backends that offer the compare-and-swap (it is theirs, not a requirement of `ItemStore`:
/// only their `applyPlanned` relies on it).
protocol ConditionallyApplying: ItemStore {
    func apply(_ batch: [StoreOperation], ifUnchangedSince stamp: ChangeStamp) throws -> BatchResult?
}

extension MemoryStore: ConditionallyApplying {}
extension SQLiteStore: ConditionallyApplying {}

@Suite struct ConditionalApplyRegressionTests {
    static let group = "com.microsoft.adalcache"

    static func item(_ data: String) -> StoreItem {
        StoreItem(accessGroup: group, account: "authority_map", service: "client", type: 5001, data: Data(data.utf8))
    }

    func check(_ first: any ConditionallyApplying, _ second: any ItemStore) throws {
        let seen = try first.changeStamp()
        #expect(try first.apply([.save(Self.item("a"))], ifUnchangedSince: seen) != nil)
        // The first store's own commit moved its stamp: the old one no longer applies.
        #expect(try first.apply([.save(Self.item("stale"))], ifUnchangedSince: seen) == nil)

        // A commit through the other handle invalidates this one's stamp, and nothing is written.
        let before = try first.changeStamp()
        try second.save(Self.item("b"))
        #expect(try first.apply([.save(Self.item("lost b"))], ifUnchangedSince: before) == nil)
        #expect(try first.items(matching: Self.item("").identity.query).map(\.data) == [Data("b".utf8)])

        // With a fresh stamp it applies, and reports its commit stamps like apply(_:).
        let now = try first.changeStamp()
        let result = try #require(try first.apply([.save(Self.item("c"))], ifUnchangedSince: now))
        #expect(result.replaced == 1)
        #expect(result.commit?.base == now)
        #expect(try first.changeStamp() == result.commit?.result)
    }

    @Test func memoryStore() throws {
        let store = MemoryStore(accessGroups: try AccessGroups([Self.group]))
        try check(store, store)
    }

    @Test func sqliteStoresOnOneFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cas-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cache.sqlite").path
        let groups = try AccessGroups([Self.group])
        try check(try SQLiteStore(path: path, accessGroups: groups), try SQLiteStore(path: path, accessGroups: groups))
    }

    /// Read-modify-writes through applyPlanned from several threads and two handles never lose an
    /// increment (with optimistic retries alone, six soak processes starved each other).
    func checkPlannedIncrements(_ stores: [any ItemStore]) throws {
        let rounds = 50
        // A store error fails this test, not the whole test process.
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let store = stores[worker % stores.count]
            do {
                for _ in 0..<rounds {
                    try store.applyPlanned { _, allItems in
                        let current = try allItems().first { $0.account == "authority_map" }
                            .map { Int(String(decoding: $0.data, as: UTF8.self))! } ?? 0
                        return [.save(Self.item("\(current + 1)"))]
                    }
                }
            } catch {
                failures.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let final = try stores[0].items(matching: Self.item("").identity.query).first
        #expect(final.map { String(decoding: $0.data, as: UTF8.self) } == "\(4 * rounds)")
    }

    @Test func plannedWritesNeverLoseAnUpdateInMemory() throws {
        try checkPlannedIncrements([MemoryStore(accessGroups: try AccessGroups([Self.group]))])
    }

    @Test func plannedWritesNeverLoseAnUpdateOnSQLite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cas-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cache.sqlite").path
        let groups = try AccessGroups([Self.group])
        try checkPlannedIncrements([try SQLiteStore(path: path, accessGroups: groups), try SQLiteStore(path: path, accessGroups: groups)])
    }
}
