import CacheStore
import CacheStoreMemory
import Foundation
import TestSupport
import Testing
import TokenCache
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

let group = "com.microsoft.adalcache"

func fixture(_ relativePath: String) throws -> Data {
    try Fixtures.data(relativePath)
}

func newStore(_ groups: [String] = [group]) throws -> MemoryStore {
    try MemoryStore(accessGroups: AccessGroups(groups))
}

/// Imports `data` into a new memory store.
func imported(_ data: Data, source: String = "test", format: ImportFormat? = nil) throws -> (MemoryStore, ImportReport) {
    let store = try newStore()
    let report = try CacheInterchange(store: store).importData(data, source: source, format: format)
    return (store, report)
}

func parseObject(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
    try #require(try JSONValue.parse(data, allowTrailingCommas: false).objectValue, sourceLocation: sourceLocation)
}

/// The decoded payload of the store item with this account, service and type.
func payload(in store: any ItemStore, account: String, service: String, type: UInt32) throws -> JSONObject? {
    guard let item = try store.items(matching: ItemQuery(account: account, service: service, type: .code(type))).first else { return nil }
    return try JSONValue.parse(item.data).objectValue
}

extension Data {
    var utf8String: String { String(decoding: self, as: UTF8.self) }
}
