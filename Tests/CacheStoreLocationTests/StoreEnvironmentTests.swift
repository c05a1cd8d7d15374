import CacheStore
import CacheStoreLocation
import CacheStoreMemory
import Testing

@Suite struct StoreEnvironmentTests {
    func environment(_ variables: [String: String]) -> StoreEnvironment {
        StoreEnvironment(variables: variables, currentDirectory: "/work")
    }

    @Test func defaultFollowsXDGDataHome() throws {
        #expect(try environment(["HOME": "/home/u"]).specification(flag: nil)
            == .sqlite(path: "/home/u/.local/share/tokencache/cache.sqlite"))
        #expect(try environment(["HOME": "/home/u", "XDG_DATA_HOME": ""]).specification(flag: nil)
            == .sqlite(path: "/home/u/.local/share/tokencache/cache.sqlite"))
        #expect(try environment(["HOME": "/home/u", "XDG_DATA_HOME": "relative/dir"]).specification(flag: nil)
            == .sqlite(path: "/home/u/.local/share/tokencache/cache.sqlite"), "XDG: relative paths are ignored")
        #expect(try environment(["HOME": "/home/u", "XDG_DATA_HOME": "/data"]).specification(flag: nil)
            == .sqlite(path: "/data/tokencache/cache.sqlite"))
    }

    @Test func flagBeatsVariableBeatsDefault() throws {
        let env = environment(["HOME": "/h", "TOKENCACHE_STORE": "memory"])
        #expect(try env.specification(flag: nil) == .memory)
        #expect(try env.specification(flag: "sqlite:/x.db") == .sqlite(path: "/x.db"))
        #expect(try environment(["HOME": "/h", "TOKENCACHE_STORE": ""]).specification(flag: nil)
            == .sqlite(path: "/h/.local/share/tokencache/cache.sqlite"))
    }

    @Test func relativeSQLitePathsStartAtTheCurrentDirectory() throws {
        #expect(try StoreSpecification(parsing: "sqlite:a/b.sqlite", currentDirectory: "/work") == .sqlite(path: "/work/a/b.sqlite"))
        #expect(StoreSpecification.sqlite(path: "/p").description == "sqlite:/p")
    }

    @Test(arguments: ["sqlite:", "sqlite", "postgres:x", "", "Memory"])
    func unknownSpecificationsAreUsageErrors(text: String) {
        #expect(throws: StoreLocationError.self) { try StoreSpecification(parsing: text, currentDirectory: "/") }
    }

    @Test func noHomeAndNoXDGIsAClearError() {
        #expect(throws: StoreLocationError.noDefaultLocation) { try environment([:]).specification(flag: nil) }
    }

    @Test func accessGroupsFromFlagsThenVariableThenDefault() throws {
        let env = environment(["TOKENCACHE_ACCESS_GROUPS": " one , two,,"])
        #expect(try env.accessGroups(flags: []).all == ["one", "two"])
        #expect(try env.accessGroups(flags: ["x"]).all == ["x"])
        #expect(try environment([:]).accessGroups(flags: []).all == ["com.microsoft.adalcache"])
        #expect(try environment(["TOKENCACHE_ACCESS_GROUPS": ","]).accessGroups(flags: []).all == ["com.microsoft.adalcache"])
    }

    @Test func openerOpensTheNamedBackend() throws {
        let store = try StoreOpener.open(.memory, accessGroups: try AccessGroups(["g"]))
        #expect(store is MemoryStore)
    }
}
