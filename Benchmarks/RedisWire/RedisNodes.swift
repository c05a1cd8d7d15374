import CacheStoreRedis
import Foundation

/// Every master of a Redis deployment, each with its own ``RESPClient``, and the routing of a key
/// to the master that owns its slot (CRC16 of the key or of its `{hash tag}`, as Redis Cluster
/// does). A standalone server is one master owning every slot.
public final class RedisNodes {
    /// One client per master, in `CLUSTER SLOTS` order (the given endpoint alone when standalone).
    public let masters: [RESPClient]
    /// The masters' endpoints, in the same order.
    public let endpoints: [RedisConfiguration.Endpoint]
    private let owners: [Int]

    public init(_ endpoint: RedisConfiguration.Endpoint) throws {
        let first = try RESPClient(endpoint)
        var owners = [Int](repeating: 0, count: 16384)
        var endpoints: [RedisConfiguration.Endpoint] = [endpoint]
        var masters = [first]
        if case .array(let ranges) = try first.pipeline([[Data("CLUSTER".utf8), Data("SLOTS".utf8)]])[0] {
            endpoints = []
            masters = []
            for case .array(let range) in ranges {
                guard range.count >= 3, case .integer(let low) = range[0], case .integer(let high) = range[1],
                      case .array(let master) = range[2], master.count >= 2,
                      case .bulk(let host?) = master[0], case .integer(let port) = master[1]
                else { throw RESPClient.Failure(text: "unexpected CLUSTER SLOTS reply") }
                let node = RedisConfiguration.Endpoint.tcp(host: String(decoding: host, as: UTF8.self), port: Int(port))
                var index = endpoints.firstIndex(of: node)
                if index == nil {
                    endpoints.append(node)
                    masters.append(try RESPClient(node))
                    index = endpoints.count - 1
                }
                for slot in Int(low)...Int(high) { owners[slot] = index! }
            }
        }
        self.masters = masters
        self.endpoints = endpoints
        self.owners = owners
    }

    /// The client of the master owning `key`'s slot.
    public func client(for key: Data) -> RESPClient { masters[owners[Self.slot(key)]] }

    /// Each command sent to the master owning the key at `keyPosition` of it, one pipeline per
    /// master; the replies in the commands' order, error replies in place.
    public func pipeline(_ commands: [[Data]], keyPosition: Int = 1) throws -> [RESPClient.Reply] {
        var byMaster = [[Int]](repeating: [], count: masters.count)
        for (index, command) in commands.enumerated() { byMaster[owners[Self.slot(command[keyPosition])]].append(index) }
        var replies = [RESPClient.Reply](repeating: .bulk(nil), count: commands.count)
        for (master, positions) in byMaster.enumerated() where !positions.isEmpty {
            for (position, reply) in zip(positions, try masters[master].pipeline(positions.map { commands[$0] })) {
                replies[position] = reply
            }
        }
        return replies
    }

    /// Redis Cluster's slot of a key: CRC16 (XMODEM) of its hash tag when it has a non-empty one.
    public static func slot(_ key: Data) -> Int {
        let bytes = [UInt8](key)
        var hashed = bytes[...]
        if let open = bytes.firstIndex(of: UInt8(ascii: "{")),
           let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1 {
            hashed = bytes[(open + 1)..<close]
        }
        var crc: UInt16 = 0
        for byte in hashed {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return Int(crc) & 16383
    }
}
