import ArgumentParser
import CacheStore
import CacheStoreLocation
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCache

/// The options every command that opens a store accepts.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The store: \(StoreSpecification.forms) (default: TOKENCACHE_STORE, else $XDG_DATA_HOME/tokencache/cache.sqlite).",
            valueName: "store"))
    var store: String?

    @Option(
        name: .customLong("access-group"),
        help: ArgumentHelp(
            "An access group this process may use; repeat for several, the first receives writes (default: TOKENCACHE_ACCESS_GROUPS, else com.microsoft.adalcache).",
            valueName: "group"))
    var accessGroups: [String] = []

    /// Opens the store these options name, reporting failures with the CLI's exit codes.
    func open() throws -> any ItemStore {
        let environment = StoreEnvironment(
            variables: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath)
        let (specification, groups) = try resolvingArguments {
            (try environment.specification(flag: store), try environment.accessGroups(flags: accessGroups))
        }
        return try exitOnFailure {
            try StoreOpener.open(specification, accessGroups: groups, notice: { printError("note: \($0)") })
        }
    }

    /// The access group items are written to (the first of `--access-group` or the environment's),
    /// without opening a store.
    func writeGroup() throws -> String {
        let environment = StoreEnvironment(variables: ProcessInfo.processInfo.environment, currentDirectory: "/")
        return try resolvingArguments { try environment.accessGroups(flags: accessGroups) }.primary
    }

    /// Opens the store and the engine over it, keeping the whole store in memory or, for a question
    /// about one account, only the partitions it needs (see ``TargetedLoading``).
    func openCache(loading: TokenCache.Configuration.Loading = .wholeStore) throws -> TokenCache {
        let store = try open()
        return try exitOnFailure { try TokenCache(store: store, configuration: TokenCache.Configuration(loading: loading)) }
    }
}
