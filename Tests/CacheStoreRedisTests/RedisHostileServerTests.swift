import CacheStore
import Foundation
import Testing
@testable import CacheStoreRedis

/// Servers that answer too slowly or too much: the command timeout bounds the whole round trip, and
/// a reply no layout produces is refused before anything is allocated for it.
@Suite("Redis hostile servers", .enabled(if: PrivateRedis.available))
struct RedisHostileServerTests {
    static func connect(_ server: FakeRedisServer, timeout: Int) throws -> RedisConnection {
        try RedisConnection(.tcp(host: "127.0.0.1", port: Int(server.port)), connectTimeoutMilliseconds: timeout, commandTimeoutMilliseconds: timeout)
    }

    /// One byte every 100 ms, each read well within the 400 ms timeout: the reply would take 3 s.
    @Test func aDrippedReplyTimesOutAtTheCommandTimeout() throws {
        let reply = Array("$24\r\n\(String(repeating: "x", count: 24))\r\n".utf8)
        let server = try FakeRedisServer(reply: reply, bytesPerWrite: 1, pauseMicroseconds: 100_000)
        defer { server.finish() }
        let connection = try Self.connect(server, timeout: 400)
        let started = ContinuousClock.now
        #expect {
            _ = try connection.command(["GET", "k"])
        } throws: { error in
            guard case RedisError.timedOut(_, _, let milliseconds) = error else { return false }
            return milliseconds == 400
        }
        #expect(ContinuousClock.now - started < .milliseconds(1500))
        #expect(connection.isBroken)
    }

    @Test func anArrayOfTwoBillionElementsIsRefusedAtOnce() throws {
        let server = try FakeRedisServer(reply: Array("*2147483647\r\n:1\r\n:2\r\n".utf8), bytesPerWrite: 64)
        defer { server.finish() }
        let connection = try Self.connect(server, timeout: 2000)
        let started = ContinuousClock.now
        #expect {
            _ = try connection.command(["HGETALL", "k"])
        } throws: { error in
            guard case RedisError.unexpectedReply(_, _, let got) = error else { return false }
            return got.contains("larger than any")
        }
        #expect(ContinuousClock.now - started < .milliseconds(1000))
    }

    /// A bulk string announced at 1 GiB and sent as fast as the socket takes it: refused once what
    /// is buffered passes the reply cap, not after the whole gigabyte.
    @Test func anOversizedBulkStringIsRefused() throws {
        let server = try FakeRedisServer(reply: Array("$1073741824\r\n".utf8), filler: 600 << 20)
        defer { server.finish() }
        let connection = try Self.connect(server, timeout: 20_000)
        #expect {
            _ = try connection.command(["GET", "k"])
        } throws: { error in
            guard case RedisError.unexpectedReply(_, _, let got) = error else { return false }
            return got.contains("MiB")
        }
    }
}
