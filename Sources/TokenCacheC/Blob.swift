import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCache
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

private func partition(_ kind: Int32, _ key: UnsafePointer<CChar>?) throws -> MSALPartition {
    switch kind {
    case 0: return .all
    case 1: return .account(homeAccountId: try Arguments.string(key, "key"))
    case 2: return .client(clientId: try Arguments.string(key, "key"))
    default: throw BadInput("partition \(kind) is not a tokencache_partition")
    }
}

@_cdecl("tokencache_blob_load")
public func tokencache_blob_load(
    _ cache: OpaquePointer?, _ kind: Int32, _ key: UnsafePointer<CChar>?,
    _ blob: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ version: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    blob?.pointee = nil
    version?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        guard blob != nil else { throw BadInput("the blob result pointer is NULL") }
        let loaded = try handle.blobs.load(try partition(kind, key))
        deliver(String(decoding: loaded.document, as: UTF8.self), to: blob)
        deliver(loaded.version, to: version)
    }
}

@_cdecl("tokencache_blob_store")
public func tokencache_blob_store(
    _ cache: OpaquePointer?, _ kind: Int32, _ key: UnsafePointer<CChar>?, _ blobText: UnsafePointer<CChar>?,
    _ versionText: UnsafePointer<CChar>?, _ flags: UInt32,
    _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    result?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        let target = try partition(kind, key)
        let document = try Arguments.string(blobText, "blob")
        let version = try Arguments.optionalString(versionText, "version")
        guard flags & ~1 == 0 else { throw BadInput("unknown flags \(flags)") }
        let report = try handle.blobs.store(
            Data(document.utf8), partition: target, version: version, failOnConflict: flags & 1 != 0)
        let object: JSONObject = [
            "version": .string(report.version),
            "saved": .number(JSONNumber(Int64(report.saved))),
            "removed": .number(JSONNumber(Int64(report.removed))),
            "conflicts": .array(report.conflicts.map { .object(["section": .string($0.section), "key": .string($0.key)]) }),
            "ignored": .array(report.ignored.map { .object(["entry": .string($0.path), "reason": .string($0.reason)]) }),
        ]
        deliver(JSONValue.object(object).serializedString(), to: result)
    }
}

@_cdecl("tokencache_write_entries")
public func tokencache_write_entries(
    _ cache: OpaquePointer?, _ documentText: UnsafePointer<CChar>?,
    _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    result?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        let document = try Arguments.string(documentText, "document")
        // Decoded here and committed through the engine, so its index follows its own write.
        let decoded = try ImportDecoder.decode(
            Data(document.utf8), source: "the document", format: .msalJSON, accessGroup: handle.interchange.accessGroup)
        try handle.cache.apply(decoded.items.map(StoreOperation.save))
        let object: JSONObject = [
            "saved": .number(JSONNumber(Int64(decoded.items.count))),
            "skipped": .array(decoded.skipped.map { .object(["entry": .string($0.path), "reason": .string($0.reason)]) }),
        ]
        deliver(JSONValue.object(object).serializedString(), to: result)
    }
}

@_cdecl("tokencache_remove_entries")
public func tokencache_remove_entries(
    _ cache: OpaquePointer?, _ documentText: UnsafePointer<CChar>?,
    _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    result?.pointee = nil
    return abiCall(error) {
        let handle = try CacheHandle.from(cache)
        let document = try Arguments.string(documentText, "document")
        var operations = try handle.interchange.removalOperations(Data(document.utf8), source: "the document")
        // Entries search projected from legacy ADAL entries are removed by removing those entries.
        var projected: [(kind: CacheSearch.Kind, entry: JSONObject)] = []
        if case .object(let sections)? = try? JSONValue.parse(Data(document.utf8)) {
            for (name, section) in sections {
                guard let kind = CacheSearch.Kind.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }),
                    kind == .account || kind == .refreshToken, case .object(let entries) = section
                else { continue }
                for (_, entry) in entries { if case .object(let object) = entry { projected.append((kind, object)) } }
            }
        }
        if !projected.isEmpty {
            operations += try handle.cache.legacySources(of: projected).map { .delete($0.query) }
        }
        let removed = try handle.cache.apply(operations).deleted
        deliver(JSONValue.object(["removed": .number(JSONNumber(Int64(removed)))]).serializedString(), to: result)
    }
}
