import CacheStore
@_spi(Statistics) import CacheStoreRedis
import Foundation
import RedisWire
@_spi(Statistics) import TokenCache

/// Named counts, summed over processes: what a worker did after its warm-up (`OUTPUT.counters`, a
/// `name value` line each), and what the servers did meanwhile.
struct Counters {
    var values: [String: Double] = [:]

    subscript(name: String) -> Double {
        get { values[name] ?? 0 }
        set { values[name] = newValue }
    }

    static func - (after: Counters, before: Counters) -> Counters {
        var difference = after
        for (name, value) in before.values { difference[name] -= value }
        return difference
    }

    mutating func add(_ other: Counters) {
        for (name, value) in other.values { self[name] += value }
    }

    func write(to path: String) throws {
        let text = values.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func read(from path: String) throws -> Counters {
        var counters = Counters()
        for line in String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self).split(separator: "\n") {
            // The name may hold spaces; the value is after the last one.
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw LoadError.worker("\(path) is malformed")
            }
            counters[String(line[..<space])] += value
        }
        return counters
    }

    /// This process's processor time (user and system), the engine's partition counters and the
    /// store's round trips.
    static func worker(cache: TokenCache?) -> Counters {
        var counters = Counters()
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        counters["client CPU µs"] = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        guard let cache else { return counters }
        let statistics = cache.partitionStatistics
        for (label, value) in Mirror(reflecting: statistics).children {
            if let label, let value = value as? Int { counters["engine \(label)"] = Double(value) }
        }
        if let redis = cache.store as? RedisStore {
            for (operation, count) in redis.roundTrips {
                counters["round trips"] += Double(count)
                counters["round trips: \(operation.replacingOccurrences(of: " ", with: "_"))"] = Double(count)
            }
        }
        return counters
    }

    /// Every master's processor time and commands (`INFO cpu`, `INFO commandstats`), summed.
    static func servers(_ nodes: RedisNodes) throws -> Counters {
        var counters = Counters()
        for master in nodes.masters {
            for section in ["cpu", "commandstats"] {
                guard case .bulk(let text?) = try master.command("INFO", section) else { continue }
                for line in String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline) {
                    if line.hasPrefix("used_cpu_sys:") || line.hasPrefix("used_cpu_user:") {
                        counters["server CPU µs"] += (Double(line.split(separator: ":")[1]) ?? 0) * 1e6
                    } else if line.hasPrefix("cmdstat_"), let colon = line.firstIndex(of: ":"),
                              let calls = line[colon...].split(separator: ",").first?.split(separator: "=").last.flatMap({ Double($0) }) {
                        let command = line[line.index(line.startIndex, offsetBy: 8)..<colon]
                        guard command != "info" else { continue }
                        counters["commands"] += calls
                        counters["commands: \(command)"] += calls
                    }
                }
            }
        }
        return counters
    }
}
