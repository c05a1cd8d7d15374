import CacheStore
import Testing

@Suite struct AccessGroupsTests {
    @Test func keepsOrderDropsDuplicatesAndNamesThePrimary() throws {
        let groups = try AccessGroups(["b", "a", "b"])
        #expect(groups.all == ["b", "a"])
        #expect(groups.primary == "b")
        #expect(groups.contains("a"))
        #expect(!groups.contains("A"))
    }

    @Test func emptyIsAnError() {
        #expect(throws: CacheStoreError.self) { try AccessGroups([]) }
    }

    @Test func checksBatchesAndQueries() throws {
        let groups = try AccessGroups(["g"])
        try groups.check(ItemQuery())
        try groups.check(ItemQuery(accessGroup: "g"))
        #expect(throws: CacheStoreError.self) { try groups.check(ItemQuery(accessGroup: "h")) }
        let item = StoreItem(accessGroup: "h", account: "", service: "", data: .init())
        #expect(throws: CacheStoreError.self) { try groups.check([.delete(ItemQuery()), .save(item)]) }
    }

    @Test func refusalSaysWhatToDo() throws {
        let error = CacheStoreError.accessGroupNotAllowed("x", allowed: ["a", "b"])
        #expect(error.description.contains("'x'"))
        #expect(error.description.contains("'a', 'b'"))
        #expect(!error.description.contains("--"), "the library names no CLI flag; the CLI adds --access-group")
    }
}
