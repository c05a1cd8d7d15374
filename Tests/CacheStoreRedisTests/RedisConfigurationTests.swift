import CacheStore
import Foundation
import Testing
@testable import CacheStoreRedis

@Suite("Redis store spec")
struct RedisConfigurationTests {
    @Test func tcpSpecWithLoginDatabaseAndOptions() throws {
        let configuration = try RedisConfiguration(
            parsing: "redis://app:s%40cret@cache.internal:6380/2?prefix=tc&key=file:/etc/tc.key&timeout=500&connect_timeout=250&lifetime=14d&tracking=off")
        #expect(configuration.endpoint == .tcp(host: "cache.internal", port: 6380))
        #expect(configuration.username == "app")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == 2)
        #expect(configuration.prefix == "tc")
        #expect(configuration.keySource == .file(path: "/etc/tc.key"))
        #expect(configuration.commandTimeoutMilliseconds == 500)
        #expect(configuration.connectTimeoutMilliseconds == 250)
        #expect(configuration.lifetimeSeconds == 14 * 86400)
        #expect(configuration.tracking == false)
        #expect(!configuration.description.contains("s@cret") && !configuration.description.contains("s%40cret"))
    }

    @Test func defaultsAndUnixSocket() throws {
        let tcp = try RedisConfiguration(parsing: "redis://127.0.0.1")
        #expect(tcp.endpoint == .tcp(host: "127.0.0.1", port: 6379))
        #expect(tcp.database == 0 && tcp.prefix == "tokencache" && tcp.tracking)
        #expect(tcp.keySource == .environment(name: "TOKENCACHE_REDIS_KEY"))
        #expect(tcp.connectTimeoutMilliseconds == 2000 && tcp.commandTimeoutMilliseconds == 3000)
        let unix = try RedisConfiguration(parsing: "redis+unix:///run/redis/redis.sock?db=3&key=env:MY_KEY")
        #expect(unix.endpoint == .unix(path: "/run/redis/redis.sock"))
        #expect(unix.database == 3)
        #expect(unix.keySource == .environment(name: "MY_KEY"))
        // The socket path is percent-decoded; one that does not decode to UTF-8 has no path.
        let spaced = try RedisConfiguration(parsing: "redis+unix:///run/my%20redis/r%C3%A9dis.sock")
        #expect(spaced.endpoint == .unix(path: "/run/my redis/rédis.sock"))
        #expect(throws: RedisError.self) { try RedisConfiguration(parsing: "redis+unix:///run/%FF.sock") }
    }

    @Test func waitNamesTheReplicasEachCommitNeedsAndIsShownWhenSet() throws {
        #expect(try RedisConfiguration(parsing: "redis://127.0.0.1").replicasToWait == 0)
        let waiting = try RedisConfiguration(parsing: "redis://127.0.0.1:7000?wait=2&timeout=800")
        #expect(waiting.replicasToWait == 2)
        #expect(waiting.description == "redis://127.0.0.1:7000?timeout=800&wait=2")
        #expect(try RedisConfiguration(parsing: waiting.description) == waiting)
        #expect(try RedisConfiguration(parsing: "redis://127.0.0.1?wait=0").description == "redis://127.0.0.1:6379")
    }

    @Test func passwordFromEnvironmentWhenTheSpecHasNone() throws {
        let configuration = try RedisConfiguration(parsing: "redis://localhost:6379")
        #expect(configuration.resolvedPassword(environment: ["TOKENCACHE_REDIS_PASSWORD": "pw"]) == "pw")
        let given = try RedisConfiguration(parsing: "redis://:spec@localhost:6379")
        #expect(given.resolvedPassword(environment: ["TOKENCACHE_REDIS_PASSWORD": "pw"]) == "spec")
    }

    @Test(arguments: [
        "redis://", "redis://host:0", "redis://host/x", "redis://host?prefix=a{b}", "redis://host?key=vault",
        "redis://host?timeout=-1", "redis://host?lifetime=soon", "redis://host?color=blue", "redis+unix://relative",
        "redis://host?wait=-1", "redis://host?wait=two", "redis://host?wait=101",
    ])
    func malformedSpecsAreRefusedWithoutThePassword(spec: String) {
        #expect(throws: RedisError.self) { try RedisConfiguration(parsing: spec) }
        do {
            _ = try RedisConfiguration(parsing: "redis://u:topsecret@host?color=blue")
        } catch {
            #expect(!String(describing: error).contains("topsecret"))
        }
    }

    @Test func hashSlotsFollowTheHashTag() {
        // Values from the Redis Cluster specification's reference implementation.
        #expect(ClusterSlot.crc16(Array("123456789".utf8)[...]) == 0x31C3)
        #expect(ClusterSlot.of(Data("{user1000}.following".utf8)) == ClusterSlot.of(Data("{user1000}.followers".utf8)))
        #expect(ClusterSlot.of(Data("foo{}{bar}".utf8)) == ClusterSlot.of(Data("foo{}{bar}".utf8)))
        #expect(ClusterSlot.of(Data("foo".utf8)) == 12182)
    }
}
