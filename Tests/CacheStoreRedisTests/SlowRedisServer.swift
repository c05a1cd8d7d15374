#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A Redis impostor on loopback that answers every round trip — whatever commands arrived together,
/// as a pipeline — after `delayMilliseconds` (changeable while it runs): each round trip within a
/// timeout larger than the delay, so only a deadline over a whole call can stop a call of several.
/// It answers as an empty standalone server: `CLUSTER` is refused as on a server without cluster
/// support, `EXISTS` says 1, `GET` nil, `SMEMBERS` and `HGETALL` empty, anything else `+OK`.
final class SlowRedisServer: @unchecked Sendable {
    let port: UInt16
    let delayMilliseconds = Atomic<Int>(0)
    /// Round trips answered so far.
    let roundTrips = Atomic<Int>(0)
    private let listener: Int32
    private var thread = pthread_t()
    private let stopped = Atomic<Bool>(false)

    init() throws {
        (listener, port) = try loopbackListener()
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { context in
            Unmanaged<SlowRedisServer>.fromOpaque(context!).takeRetainedValue().serve()
            return nil
        }, context)
    }

    /// Waits (50 ms at a time) until `fd` is readable; false once the test stopped the server.
    private func readable(_ fd: Int32) -> Bool {
        while !stopped.load(ordering: .acquiring) {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 50) > 0 { return true }
        }
        return false
    }

    private func serve() {
        while readable(listener) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            converse(connection)
            close(connection)
        }
    }

    /// Answers the connection's round trips until the client closes it or the test stops.
    private func converse(_ connection: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while readable(connection) {
            let count = read(connection, &chunk, chunk.count)
            if count <= 0 { return }
            pending += chunk[0..<count]
            var commands: [[String]] = []
            while let (command, used) = Self.parse(pending) {
                commands.append(command)
                pending.removeFirst(used)
            }
            guard !commands.isEmpty else { continue }
            usleep(UInt32(delayMilliseconds.load(ordering: .acquiring) * 1000))
            // What arrived meanwhile is the rest of the same pipeline (a client sends a pipeline
            // whole before it reads; the socket may hand it over in pieces): one round trip.
            while hasInput(connection) {
                let more = read(connection, &chunk, chunk.count)
                if more <= 0 { break }
                pending += chunk[0..<more]
                while let (command, used) = Self.parse(pending) {
                    commands.append(command)
                    pending.removeFirst(used)
                }
            }
            let answer = commands.map(Self.answer).joined()
            let bytes = Array(answer.utf8)
            // Counted before the answer leaves: a client that has its answer sees it counted.
            roundTrips.add(1, ordering: .releasing)
            let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent != bytes.count { return }
        }
    }

    static func answer(_ command: [String]) -> String {
        switch command.first?.uppercased() {
        case "CLUSTER": "-ERR This instance has cluster support disabled\r\n"
        case "EXISTS": ":1\r\n"
        case "GET": "$-1\r\n"
        case "SMEMBERS", "HGETALL": "*0\r\n"
        case "PING": "+PONG\r\n"
        default: "+OK\r\n"
        }
    }

    /// One command (`*N` then N bulk strings) from the front of `bytes`, and the bytes it used; nil
    /// until it has all arrived.
    static func parse(_ bytes: [UInt8]) -> ([String], Int)? {
        var offset = 0
        func line() -> String? {
            guard let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")), end > offset else { return nil }
            let text = String(decoding: bytes[offset..<(end - 1)], as: UTF8.self)
            offset = end + 1
            return text
        }
        guard let header = line(), header.hasPrefix("*"), let count = Int(header.dropFirst()) else { return nil }
        var arguments: [String] = []
        for _ in 0..<count {
            guard let size = line(), size.hasPrefix("$"), let length = Int(size.dropFirst()), offset + length + 2 <= bytes.count else {
                return nil
            }
            arguments.append(String(decoding: bytes[offset..<(offset + length)], as: UTF8.self))
            offset += length + 2
        }
        return (arguments, offset)
    }

    /// Whether `fd` has bytes to read now.
    private func hasInput(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// Stops answering, closes the listener and waits for the server thread.
    func finish() {
        stopped.store(true, ordering: .releasing)
        pthread_join(thread, nil)
        close(listener)
    }
}
