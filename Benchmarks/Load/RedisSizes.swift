import Foundation
import RedisWire

/// What the driver reads from the servers: `INFO` counters summed over the masters, and every key's
/// `MEMORY USAGE`, by kind.
struct RedisSizes {
    let nodes: RedisNodes

    /// An `INFO` field (`used_memory`, `total_net_input_bytes`, …) summed over the masters.
    func info(_ section: String, _ field: String) throws -> Double {
        var total = 0.0
        for master in nodes.masters {
            guard case .bulk(let text?) = try master.command("INFO", section) else { continue }
            for line in String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline) where line.hasPrefix(field + ":") {
                total += Double(line.dropFirst(field.count + 1)) ?? 0
            }
        }
        return total
    }

    /// Network bytes in and out of every master so far.
    func networkBytes() throws -> Double {
        try info("stats", "total_net_input_bytes") + info("stats", "total_net_output_bytes")
    }

    /// The keys of a layout, as the report groups them.
    struct Kind: Hashable, Comparable {
        let name: String
        static func < (left: Kind, right: Kind) -> Bool { left.name < right.name }
    }

    struct Usage {
        var keys = 0
        var bytes = 0.0
        var largestKey = ""
        var largestBytes = 0.0
        /// The largest partition's account attribute (`authority_map` for the apps' account metadata).
        var largestAccount: String?
    }

    /// Every key under `prefix` with its `MEMORY USAGE … SAMPLES 0` (exact), summed by kind: the
    /// part after the prefix up to the next `:` (`p` partitions, `g` group index, `l` lookup-key
    /// index, `blob`, …).
    func usage(prefix: String) throws -> [String: Usage] {
        var kinds: [String: Usage] = [:]
        for master in nodes.masters {
            var cursor = "0"
            repeat {
                guard case .array(let reply) = try master.command("SCAN", cursor, "MATCH", prefix + ":*", "COUNT", "2000"),
                      reply.count == 2, case .bulk(let next?) = reply[0], case .array(let found) = reply[1]
                else { throw LoadError.worker("unexpected SCAN reply") }
                cursor = String(decoding: next, as: UTF8.self)
                let keys = found.compactMap { if case .bulk(let key?) = $0 { key } else { nil } }
                let sizes = try master.pipeline(keys.map { [Data("MEMORY".utf8), Data("USAGE".utf8), $0, Data("SAMPLES".utf8), Data("0".utf8)] })
                for (key, size) in zip(keys, sizes) {
                    guard case .integer(let bytes) = size else { continue }
                    let name = String(decoding: key, as: UTF8.self)
                    let kind = name.dropFirst(prefix.count + 1).prefix { $0 != ":" }
                    var usage = kinds[String(kind)] ?? Usage()
                    usage.keys += 1
                    usage.bytes += Double(bytes)
                    if Double(bytes) > usage.largestBytes { usage.largestBytes = Double(bytes); usage.largestKey = name }
                    kinds[String(kind)] = usage
                }
            } while cursor != "0"
        }
        // Which partition is the largest: its `.account` attribute (docs/redis.md, "Keys").
        if var partitions = kinds["p"], !partitions.largestKey.isEmpty {
            let key = Data(partitions.largestKey.utf8)
            if case .bulk(let account?) = try nodes.client(for: key).command([Data("HGET".utf8), key, Data(".account".utf8)]) {
                partitions.largestAccount = String(decoding: account, as: UTF8.self)
                kinds["p"] = partitions
            }
        }
        return kinds
    }
}
