import CacheStore
import Foundation
import TestSupport
import Testing
@testable import CacheStoreRedis

/// Several processes (store-worker) writing and reading one Redis store at once.
@Suite("Redis multi-process")
struct RedisMultiProcessTests {
    @Test(arguments: SharedRedis.present)
    func concurrentWritersLoseNothingAndReadersNeverGoBack(server: SharedRedis) throws {
        let configuration = try server.configuration()
        var spec = try server.spec
        spec += (spec.contains("?") ? "&" : "?") + "prefix=\(configuration.prefix)"
        let environment = ["TOKENCACHE_REDIS_KEY": SharedRedis.key]
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanUp() }
        let stop = scratch.path("stop")
        let readers = try (0..<2).map { _ in try ChildProcess("store-worker", ["read", spec, "group.a", stop], environment: environment) }
        let writers = try (0..<4).map { try ChildProcess("store-worker", ["write", spec, "group.a", "\($0)", "40"], environment: environment) }
        for writer in writers {
            let (status, errors) = writer.wait()
            #expect(status == 0, "\(errors)")
            #expect(writer.lines.last == "done 40")
        }
        #expect(FileManager.default.createFile(atPath: stop, contents: nil))
        for reader in readers {
            let (status, errors) = reader.wait()
            #expect(status == 0, "\(errors)")
        }
        let store = try SharedRedis.open(configuration)
        #expect(try store.allItems().count == 160)
        // Several partitions written at once by several processes: each one whole.
        for worker in 0..<4 {
            #expect(try store.items(matching: ItemQuery(accessGroup: "group.a", account: "writer-\(worker)")).count == 40)
        }
    }
}
