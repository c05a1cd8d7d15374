import CacheStoreRedis
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking Redis client (GET, SET, MEMORY USAGE, INFO …) for the blob-per-user baselines
/// and the sizing numbers: what an application that keeps one serialized blob per user in Redis does,
/// without tokencache's store in the way.
public final class RESPClient {
    private let socket: Int32
    private var buffer: [UInt8] = []
    private var position = 0

    public init(_ endpoint: RedisConfiguration.Endpoint) throws {
        switch endpoint {
        case .unix(let path):
            socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
            }
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard status == 0 else { throw Failure(text: "cannot connect to \(path)") }
        case .tcp(let host, let port):
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr)
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard status == 0 else { throw Failure(text: "cannot connect to \(host):\(port)") }
            var one: Int32 = 1
            setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    deinit { close(socket) }

    public struct Failure: Error { public let text: String }

    public enum Reply {
        case bulk(Data?)
        case integer(Int64)
        case status(String)
        case array([Reply])
        /// An error reply: thrown by ``command(_:)-([Data])``, returned in place by ``pipeline(_:)``.
        case error(String)
    }

    /// One command, one round trip; an error reply is thrown.
    public func command(_ arguments: [Data]) throws -> Reply {
        try transmit(Self.encode(arguments))
        let answer = try reply()
        if case .error(let text) = answer { throw Failure(text: text) }
        return answer
    }

    public func command(_ arguments: String...) throws -> Reply { try command(arguments.map { Data($0.utf8) }) }

    /// Several commands in one round trip; their replies in order, error replies in place.
    public func pipeline(_ commands: [[Data]]) throws -> [Reply] {
        guard !commands.isEmpty else { return [] }
        var out = Data()
        for arguments in commands { out.append(Self.encode(arguments)) }
        try transmit(out)
        return try commands.map { _ in try reply() }
    }

    private static func encode(_ arguments: [Data]) -> Data {
        var out = Data("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            out.append(contentsOf: Array("$\(argument.count)\r\n".utf8))
            out.append(argument)
            out.append(contentsOf: [13, 10])
        }
        return out
    }

    private func transmit(_ out: Data) throws {
        try out.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let count = send(socket, raw.baseAddress! + sent, raw.count - sent, 0)
                guard count > 0 else { throw Failure(text: "send failed") }
                sent += count
            }
        }
    }

    private func fill() throws {
        if position > 0 && position == buffer.count { buffer.removeAll(keepingCapacity: true); position = 0 }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(socket, &chunk, chunk.count, 0)
        guard count > 0 else { throw Failure(text: "connection closed") }
        buffer.append(contentsOf: chunk[0..<count])
    }

    private func line() throws -> String {
        while true {
            if let end = buffer[position...].firstIndex(of: 10), end > position, buffer[end - 1] == 13 {
                let text = String(decoding: buffer[position..<(end - 1)], as: UTF8.self)
                position = end + 1
                return text
            }
            try fill()
        }
    }

    private func reply() throws -> Reply {
        let header = try line()
        let body = String(header.dropFirst())
        switch header.first {
        case "+": return .status(body)
        case "-": return .error(body)
        case ":": return .integer(Int64(body) ?? 0)
        case "$":
            let length = Int(body) ?? -1
            guard length >= 0 else { return .bulk(nil) }
            while buffer.count - position < length + 2 { try fill() }
            let data = Data(buffer[position..<(position + length)])
            position += length + 2
            return .bulk(data)
        case "*":
            let count = Int(body) ?? -1
            guard count >= 0 else { return .bulk(nil) }
            return .array(try (0..<count).map { _ in try reply() })
        default: throw Failure(text: "unexpected reply \(header.prefix(20))")
        }
    }
}
