#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A Redis impostor on loopback for hostile-server tests: accepts one connection, reads one
/// command, then answers with `reply`'s bytes, `bytesPerWrite` at a time, `pause` microseconds apart,
/// followed by `filler` bytes of `a`.
final class FakeRedisServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let reply: [UInt8]
    private let bytesPerWrite: Int
    private let pause: UInt32
    private let filler: Int
    private var thread = pthread_t()
    /// Set (by the test) to stop a long answer early.
    private let stopped = Atomic<Bool>(false)
    private let accepted = Atomic<Int32>(-1)

    init(reply: [UInt8], bytesPerWrite: Int = 1, pauseMicroseconds: UInt32 = 0, filler: Int = 0) throws {
        self.reply = reply
        self.filler = filler
        self.bytesPerWrite = bytesPerWrite
        pause = pauseMicroseconds
        (listener, port) = try loopbackListener()
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { context in
            Unmanaged<FakeRedisServer>.fromOpaque(context!).takeRetainedValue().serve()
            return nil
        }, context)
    }

    private func serve() {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        accepted.store(connection, ordering: .releasing)
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = read(connection, &buffer, buffer.count)  // the command: its content does not matter
        var offset = 0
        while offset < reply.count && !stopped.load(ordering: .acquiring) {
            let end = min(offset + bytesPerWrite, reply.count)
            let written = reply[offset..<end].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
            if pause > 0 { usleep(pause) }
        }
        let chunk = [UInt8](repeating: 0x61, count: 1 << 20)
        var sent = 0
        while sent < filler && !stopped.load(ordering: .acquiring) {
            let written = chunk.withUnsafeBytes { send(connection, $0.baseAddress, min($0.count, filler - sent), Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            sent += written
        }
        // Hold the connection open (silent) until the test is done with it.
        while !stopped.load(ordering: .acquiring) { usleep(10_000) }
    }

    /// Ends the answer and the connection, and waits for the server thread.
    func finish() {
        stopped.store(true, ordering: .releasing)
        // A send blocked on a client that stopped reading returns at once.
        let connection = accepted.load(ordering: .acquiring)
        if connection >= 0 { shutdown(connection, Int32(SHUT_RDWR)) }
        shutdown(listener, Int32(SHUT_RDWR))
        pthread_join(thread, nil)
        close(listener)
    }
}

struct FakeServerError: Error {}

/// A TCP socket listening on 127.0.0.1, on a port the system chose.
func loopbackListener() throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { throw FakeServerError() }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}
