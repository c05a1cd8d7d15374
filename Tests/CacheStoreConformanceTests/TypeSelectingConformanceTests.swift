import CacheStore
import Foundation
import Testing

/// ``TypeSelectingStore``: the items of some types, in the order of a whole read, from the open
/// groups only. SQLite and memory must select; a backend that does not is read whole by its callers.
@Suite("TypeSelectingStore conformance")
struct TypeSelectingConformanceTests {
    static func item(group: String = "group.a", account: String, service: String = "svc", type: UInt32?) -> StoreItem {
        StoreItem(
            accessGroup: group, account: account, service: service, generic: Data("gen".utf8), type: type,
            data: Data("\(account) \(service) \(type.map(String.init) ?? "-")".utf8))
    }

    /// A whole read without the other types, the stored attributes and payloads alike.
    static func describe(_ items: [StoreItem]) -> [String] {
        items.map { "\($0.accessGroup)|\($0.account)|\($0.service)|\($0.type.map(String.init) ?? "-")|\(String(decoding: $0.data, as: UTF8.self))" }
    }

    @Test(arguments: Backend.allCases)
    func selectedTypesComeInTheOrderOfAWholeRead(backend: Backend) throws {
        let store = try backend.makeStore(groups: ["group.a", "group.b"])
        guard let selecting = store as? any TypeSelectingStore else {
            #expect(backend != .memory && backend != .sqlite, "\(backend) must select items by type")
            return
        }
        // Types interleaved across accounts and groups, saved in several batches.
        for account in 0..<6 {
            try store.save([
                Self.item(group: account % 2 == 0 ? "group.a" : "group.b", account: "acct\(account)", type: 1003),
                Self.item(account: "acct\(account)", service: "at", type: 2001),
                Self.item(account: "acct\(account)", service: "id", type: 2003),
                Self.item(account: "acct\(account)", service: "legacy", type: nil),
                Self.item(account: "acct\(account)", service: "rt", type: 2002),
            ])
        }
        // A replaced item keeps its place; a deleted one is gone.
        try store.save(Self.item(account: "acct0", service: "id", type: 2003))
        try store.delete(matching: ItemQuery(accessGroup: "group.a", account: "acct3", service: "legacy", type: .absent))
        let whole = try store.allItems()
        for types in [[.code(1003)], [.code(1003), .code(2003), .absent], [.absent, .code(2003)], [.code(9999)], [], [.code(2003), .code(2003)]] as [[ItemQuery.TypeMatch]] {
            let expected = whole.filter { item in types.contains { $0.matches(item.type) } }
            #expect(Self.describe(try selecting.items(ofTypes: types)) == Self.describe(expected), "\(types)")
        }
        #expect(try selecting.items(ofTypes: [.code(1003)]).count == 6)
    }

    @Test(arguments: Backend.allCases)
    func onlyTheOpenGroupsAreRead(backend: Backend) throws {
        guard let (both, onlyA) = try backend.makeSharedStores(groups: ["group.a", "group.b"], second: ["group.a"]) else { return }
        guard let selecting = onlyA as? any TypeSelectingStore else {
            #expect(backend != .sqlite, "\(backend) must select items by type")
            return
        }
        try both.save([Self.item(group: "group.a", account: "a", type: 1003), Self.item(group: "group.b", account: "b", type: 1003)])
        #expect(try selecting.items(ofTypes: [.code(1003)]).map(\.account) == ["a"])
    }
}
