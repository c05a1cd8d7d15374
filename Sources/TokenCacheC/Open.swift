#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CacheStore
import CacheStoreLocation
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCache

@_cdecl("tokencache_open")
public func tokencache_open(
    _ store: UnsafePointer<CChar>?,
    _ accessGroups: UnsafePointer<UnsafePointer<CChar>?>?,
    _ accessGroupCount: Int,
    _ optionsJSON: UnsafePointer<CChar>?,
    _ cache: UnsafeMutablePointer<OpaquePointer?>?,
    _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    cache?.pointee = nil
    return abiCall(error) {
        guard let cache else { throw BadInput("the cache result pointer is NULL") }
        let text = try Arguments.optionalString(store, "store")
        guard accessGroupCount >= 0, accessGroupCount <= 4096 else { throw BadInput("access_group_count is out of range") }
        var groups: [String] = []
        if accessGroupCount > 0 {
            guard let accessGroups else { throw BadInput("access_groups is NULL with a count of \(accessGroupCount)") }
            for index in 0..<accessGroupCount {
                groups.append(try Arguments.string(accessGroups[index], "access_groups[\(index)]"))
            }
        }
        var options = try Arguments.object(optionsJSON, "options", optional: true)
        var variables = ProcessInfo.processInfo.environment
        if let key = try options.string("key") {
            guard KeyPolicy(rawValue: key) != nil else {
                throw BadInput("options: \"key\" must be one of \(KeyPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            variables["TOKENCACHE_KEY"] = key
        }
        var configuration = TokenCache.Configuration()
        configuration.writeAccessGroup = try options.string("write_access_group")
        if let buffer = try options.integer("expiration_buffer") {
            guard (0...86_400 * 365).contains(buffer) else { throw BadInput("options: \"expiration_buffer\" is out of range") }
            configuration.expirationBuffer = buffer
        }
        if let single = try options.bool("single_family_refresh_token") { configuration.useSingleFamilyRefreshToken = single }
        if let legacy = try options.bool("legacy_adal_items") { configuration.writesLegacyADALItems = legacy }
        if let name = try options.string("application_name") { configuration.applicationName = name }
        configuration.loading = try loading(&options)
        try options.finish()

        let environment = StoreEnvironment(variables: variables, currentDirectory: FileManager.default.currentDirectoryPath)
        // `store` NULL means the CLI's choice: TOKENCACHE_STORE, else the default file.
        let specification = try environment.specification(flag: text)
        let resolvedGroups = try environment.accessGroups(flags: groups)
        // Notices (a key file created) are the CLI's to print; a library stays quiet.
        let itemStore = try StoreOpener.open(specification, accessGroups: resolvedGroups, environment: variables, notice: { _ in })
        let handle = try CacheHandle(cache: TokenCache(store: itemStore, configuration: configuration))
        cache.pointee = HandleTable.insert(handle)
    }
}

/// The items a partition-mode handle keeps when the options name no `partition_limit`.
let defaultPartitionLimit = 100_000

/// The `loading` and `partition_limit` open options as the engine's loading mode.
private func loading(_ options: inout Members) throws -> TokenCache.Configuration.Loading {
    let mode = try options.string("loading")
    let limit = try options.integer("partition_limit")
    switch mode {
    case nil, "whole_store":
        guard limit == nil else { throw BadInput("options: \"partition_limit\" needs \"loading\": \"partitions\"") }
        return .wholeStore
    case "partitions":
        let limit = limit ?? Int64(defaultPartitionLimit)
        guard (1...Int64(Int32.max)).contains(limit) else {
            throw BadInput("options: \"partition_limit\" must be between 1 and \(Int32.max)")
        }
        return .partitions(limit: Int(limit))
    case .some:
        throw BadInput("options: \"loading\" must be \"whole_store\" or \"partitions\"")
    }
}

@_cdecl("tokencache_close")
public func tokencache_close(_ cache: OpaquePointer?) {
    guard let cache else { return }
    // Calls in flight on other threads keep their own reference: the last one frees the handle.
    _ = HandleTable.remove(cache)
}

@_cdecl("tokencache_change_stamp")
public func tokencache_change_stamp(
    _ cache: OpaquePointer?, _ stamp: UnsafeMutablePointer<UInt64>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    abiCall(error) {
        let handle = try CacheHandle.from(cache)
        guard let stamp else { throw BadInput("the stamp result pointer is NULL") }
        let current = try handle.cache.store.changeStamp()
        stamp[0] = current.first
        stamp[1] = current.second
    }
}
