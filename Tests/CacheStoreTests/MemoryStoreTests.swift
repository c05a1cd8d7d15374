import CacheStore
import CacheStoreMemory
import Foundation
import Testing

/// What the conformance suite does not cover: the memory store's own bookkeeping.
@Suite struct MemoryStoreTests {
    @Test func manyDeletesCompactWithoutLosingOrderOrIdentity() throws {
        let store = MemoryStore(accessGroups: try AccessGroups(["g"]))
        try store.save((0..<500).map { StoreItem(accessGroup: "g", account: "a", service: "\($0)", data: Data()) })
        for index in stride(from: 0, to: 500, by: 2) {
            try store.delete(matching: ItemQuery(service: "\(index)"))
        }
        let remaining = try store.allItems().map(\.service)
        #expect(remaining == stride(from: 1, to: 500, by: 2).map { "\($0)" })
        try store.save(StoreItem(accessGroup: "g", account: "a", service: "7", data: Data("new".utf8)))
        #expect(try store.item(ItemIdentity(accessGroup: "g", account: "a", service: "7", type: nil))?.data == Data("new".utf8))
        #expect(try store.allItems().count == 250)
    }

    @Test func datesComeFromTheInjectedClock() throws {
        let store = MemoryStore(accessGroups: try AccessGroups(["g"]), clock: { Date(timeIntervalSince1970: 1000) })
        try store.save(StoreItem(accessGroup: "g", account: "a", service: "s", data: Data()))
        #expect(try store.allItems().first?.created == Date(timeIntervalSince1970: 1000))
    }
}
