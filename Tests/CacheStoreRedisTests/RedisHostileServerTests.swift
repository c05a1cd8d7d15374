import CacheStore
import Foundation
import Testing
import TestSupport
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

    /// A server that hung up on a unix socket: writing to it raises SIGPIPE, whose default action
    /// ends the host process. The call fails "connection lost" and this thread sees no SIGPIPE.
    @Test func aServerThatHungUpIsALostConnectionNotASignal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("hung-up.sock")
        let listener = try unixListener(path)
        defer { close(listener) }
        let connection = try RedisConnection(.unix(path: path), connectTimeoutMilliseconds: 2000, commandTimeoutMilliseconds: 2000)
        let accepted = accept(listener, nil, nil)
        #expect(accepted >= 0)
        close(accepted)

        let raised = try SIGPIPECounter.counting {
            #expect {
                _ = try connection.command(["SET", "k", String(repeating: "v", count: 1 << 16)])
            } throws: { error in
                guard case RedisError.connectionLost = error else { return false }
                return true
            }
        }
        #expect(raised == 0)
    }
}

/// A listening unix socket at `path`.
private func unixListener(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { bytes in
        for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard fd >= 0, bound == 0, listen(fd, 1) == 0 else { throw FakeServerError() }
    return fd
}

/// Counts the SIGPIPEs delivered to the calling thread while `body` runs. A handler is installed for
/// the duration (the previous disposition restored after); a SIGPIPE sent to another thread then is
/// ignored, not counted, as a test process that ignores SIGPIPE would.
private enum SIGPIPECounter {
    nonisolated(unsafe) static var thread = pthread_t()
    nonisolated(unsafe) static var count: Int32 = 0
    private static let lock = NSLock()

    static func counting(_ body: () throws -> Void) throws -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        thread = pthread_self()
        count = 0
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            if pthread_equal(pthread_self(), SIGPIPECounter.thread) != 0 { SIGPIPECounter.count += 1 }
        }
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        sigaction(SIGPIPE, &action, &previous)
        defer { sigaction(SIGPIPE, &previous, nil) }
        try body()
        return count
    }
}
