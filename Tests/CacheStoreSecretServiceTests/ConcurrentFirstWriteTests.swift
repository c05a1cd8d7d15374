@testable import CacheStoreSecretService
import CacheStore
import Foundation
import TestSupport
import Testing

/// Several processes initialising the same shared keyring state at the same moment: the first
/// batch of a store (its revision item) and the first data key of an access group.
@Suite(
    "Secret Service: first writers at once", .serialized,
    .enabled(if: keyringAvailable, "needs a D-Bus session with a keyring (scripts/test.sh starts one)"))
struct ConcurrentFirstWriteTests {
    static let processes = 6

    static func runTogether(_ arguments: (Int) -> [String]) throws -> [ChildProcess] {
        let children = try (0..<processes).map { try ChildProcess("store-worker", arguments($0)) }
        for child in children {
            let (status, errors) = child.wait()
            #expect(status == 0, "\(errors)")
        }
        return children
    }

    @Test("6 processes write a new store's first batch at once, 5 rounds: one revision item, every write seen")
    func firstBatchesOfANewStore() throws {
        for round in 0..<5 {
            let namespace = "first-writers-\(round)-\(UUID().uuidString)"
            _ = try Self.runTogether { ["keyring-save", namespace, "g", "account-\($0)"] }
            let store = try SecretServiceStore(accessGroups: try AccessGroups(["g"]), options: .init(namespace: namespace))
            #expect(Set(try store.allItems().map(\.account)) == Set((0..<Self.processes).map { "account-\($0)" }), "round \(round)")
            // A later write by one process is noticed by another through the one revision item.
            let stamp = try store.changeStamp()
            _ = try Self.runTogether { $0 == 0 ? ["keyring-save", namespace, "g", "later"] : ["keyring-save", namespace, "g", "account-\($0)"] }
            #expect(try store.changeStamp() != stamp, "round \(round)")
            #expect(try store.items(matching: ItemQuery(account: "later")).count == 1, "round \(round)")
            let listing = try SecretServiceStoreTests.keyringItems(namespace)
            #expect(listing.components(separatedBy: "attribute.kind = revision").count - 1 == 1, "round \(round): \(listing)")
        }
    }

    @Test("2 processes write the first items of one new partition at once, 20 rounds: one keyring item holding both writes")
    func firstItemsOfOnePartition() throws {
        // Two: with more, a process that starts after the partition exists writes it the ordinary
        // (replacing) way, and two of those at once keep the last (docs/architecture.md).
        let writers = 2
        for round in 0..<20 {
            let namespace = "first-items-\(round)-\(UUID().uuidString)"
            let children = try (0..<writers).map { try ChildProcess("store-worker", ["keyring-save", namespace, "g", "shared", "service-\($0)"]) }
            var acknowledged: Set<String> = []
            for (index, child) in children.enumerated() {
                let (status, errors) = child.wait()
                #expect(status == 0, "\(errors)")
                if status == 0 { acknowledged.insert("service-\(index)") }
            }
            let store = try SecretServiceStore(accessGroups: try AccessGroups(["g"]), options: .init(namespace: namespace))
            let services = Set(try store.items(matching: ItemQuery(account: "shared")).map(\.service))
            #expect(acknowledged.isSubset(of: services), "round \(round): acknowledged \(acknowledged.sorted()), stored \(services.sorted())")
            let listing = try SecretServiceStoreTests.keyringItems(namespace)
            #expect(listing.components(separatedBy: "attribute.kind = partition").count - 1 == 1, "round \(round): \(listing)")
        }
    }

    @Test("6 processes create the first data key of a group at once, 5 rounds: all use the same key")
    func firstKeyOfAGroup() throws {
        for round in 0..<5 {
            let group = "first-key-\(round)-\(UUID().uuidString)"
            let children = try Self.runTogether { _ in ["keyring-key", "-", group] }
            let keys = Set(children.compactMap { $0.lines.last })
            #expect(keys.count == 1, "round \(round): \(keys)")
            #expect(try SecretServiceKeySource().existingKey(for: group, id: nil).map { "key \($0.idHex)" } == keys.first)
        }
    }
}
