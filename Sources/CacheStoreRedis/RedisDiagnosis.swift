@_spi(Text) import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `tokencache doctor` learns about a Redis store: facts with an outcome and, for problems, the fix.
/// Diagnosing writes nothing to Redis and creates no key.
public struct RedisDiagnosis: Sendable {
    public enum Outcome: String, Sendable { case ok, warning, problem }

    public struct Fact: Sendable {
        public let name: String
        public let outcome: Outcome
        public let detail: String
        public let fix: String?
    }

    public let facts: [Fact]

    /// Whether the store can be used as configured.
    public var usable: Bool { !facts.contains { $0.outcome == .problem } }

    /// The sentence about TLS: hiredis 0.14 (Debian 12) cannot speak it.
    public static let tlsNote = "hiredis 0.14 (Debian 12) has no TLS: to reach a server over the network, run a TLS proxy "
        + "(stunnel, or the provider's tunnel) on loopback and point the spec at it, e.g. redis://127.0.0.1:6380"

    /// Checks the server (reachable, version, cluster state, tracking), the key source and TLS.
    public static func diagnose(
        _ configuration: RedisConfiguration, accessGroups: AccessGroups,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> RedisDiagnosis {
        var facts: [Fact] = []
        func add(_ name: String, _ outcome: Outcome, _ detail: String, fix: String? = nil) {
            facts.append(Fact(name: name, outcome: outcome, detail: detail, fix: fix))
        }
        add("backend", .ok, "Redis \(configuration), one hash per (access group, account); keys under '\(configuration.prefix):'")
        var loopback = true
        if case .tcp(let host, _) = configuration.endpoint {
            loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }
        add("TLS", loopback ? .ok : .warning, loopback ? "not needed on loopback or a unix socket; \(tlsNote)" : tlsNote,
            fix: loopback ? nil : "start a TLS proxy on this machine and use its loopback address in the spec")

        // Server, version, cluster.
        let password = configuration.resolvedPassword(environment: environment)
        do {
            let connection = try RedisConnection(
                configuration.endpoint, connectTimeoutMilliseconds: configuration.connectTimeoutMilliseconds,
                commandTimeoutMilliseconds: configuration.commandTimeoutMilliseconds,
                username: configuration.username, password: password)
            let info = try connection.command(["INFO", "server"]).text ?? ""
            let version = Self.field("redis_version", in: info) ?? "unknown"
            let major = Int(version.split(separator: ".").first ?? "") ?? 0
            add("server", .ok, "reachable at \(configuration.endpoint)")
            add("version", major >= 7 ? .ok : (major == 6 ? .warning : .problem), "Redis \(version)",
                fix: major >= 7 ? nil : "tokencache needs Redis 7 (Redis 6 lacks nothing essential but is untested)")
            let clusterInfo = try connection.command(["CLUSTER", "INFO"])
            if case .error = clusterInfo {
                add("cluster", .ok, "standalone server (database \(configuration.database))")
            } else {
                let text = clusterInfo.text ?? ""
                let state = Self.field("cluster_state", in: text) ?? "unknown"
                let size = Self.field("cluster_size", in: text) ?? "?"
                add("cluster", state == "ok" ? .ok : .problem, "Redis Cluster, state \(state), \(size) masters serving slots",
                    fix: state == "ok" ? nil : "a master is down or slots are unassigned: `redis-cli --cluster check` says which")
            }
        } catch {
            add("server", .problem, "cannot be used", fix: error.description)
            facts.append(contentsOf: keyFacts(configuration, accessGroups: accessGroups, environment: environment))
            return RedisDiagnosis(facts: facts)
        }

        // Tracking, through a store opened without keys (it reads and writes nothing).
        do {
            var plain = configuration
            plain.keySource = .none
            let store = try RedisStore(configuration: plain, accessGroups: accessGroups, environment: environment)
            if !configuration.tracking {
                add("tracking", .warning, "off (tracking=off): every lookup asks the server whether the store changed")
            } else if store.isTrackingHealthy {
                add("tracking", .ok, "CLIENT TRACKING (BCAST, redirected to a listener) on every master: changes by other processes are pushed")
            } else {
                add("tracking", .warning, "not available: \(store.trackingProblem ?? "unknown reason"); every lookup revalidates with the server",
                    fix: "allow CLIENT and SUBSCRIBE for this user (ACL), or accept one round trip per lookup")
            }
            for (group, count) in try store.partitionCounts() {
                add("partitions in \(group)", .ok, "\(count) listed in the group index")
            }
            for group in try store.legacyIndexGroups() {
                add("index of \(group)", .ok, "partly in the layout before sharding (one set, 64 buckets): read along, never added to")
            }
            if let damaged = damagedItems(configuration, plain: store, accessGroups: accessGroups, environment: environment) {
                add("damaged items", damaged.isEmpty ? .ok : .warning, DamagedItem.summary(damaged), fix: damaged.isEmpty ? nil : DamagedItem.remedy)
            }
        } catch {
            add("store", .problem, "cannot be opened", fix: String(describing: error))
        }
        facts.append(contentsOf: keyFacts(configuration, accessGroups: accessGroups, environment: environment))
        return RedisDiagnosis(facts: facts)
    }

    /// The damaged records (see `DamagedItem`), read with the store's own keys when every group has
    /// one (nothing is created); nil when the keys cannot be had, which the key facts then explain.
    private static func damagedItems(
        _ configuration: RedisConfiguration, plain: RedisStore, accessGroups: AccessGroups, environment: [String: String]
    ) -> [DamagedItem]? {
        var keyed = configuration
        keyed.tracking = false
        switch configuration.keySource {
        case .none:
            return try? plain.damagedItems()
        case .environment:
            break
        case .file(let path):
            let file = KeyFile(path: path)
            guard FileManager.default.fileExists(atPath: path),
                  accessGroups.all.allSatisfy({ (try? file.existingKey(for: $0, id: nil)) != nil }) else { return nil }
        }
        return try? RedisStore(configuration: keyed, accessGroups: accessGroups, environment: environment).damagedItems()
    }

    private static func keyFacts(_ configuration: RedisConfiguration, accessGroups: AccessGroups, environment: [String: String]) -> [Fact] {
        switch configuration.keySource {
        case .none:
            return [Fact(name: "key source", outcome: .warning, detail: "none (key=none): payloads are stored in Redis as given",
                         fix: "use key=env:NAME or key=file:PATH so tokens are sealed before they reach the server")]
        case .environment(let name):
            guard let text = environment[name], !text.isEmpty else {
                return [Fact(name: "key source", outcome: .problem, detail: "environment variable \(name) is not set",
                             fix: "set \(name) to a Base64 256-bit key (`openssl rand -base64 32`), the same in every instance")]
            }
            do {
                let key = try DataKey(base64: text)
                return [Fact(name: "key source", outcome: .ok, detail: "environment variable \(name): data key \(key.idHex) for every access group", fix: nil)]
            } catch {
                return [Fact(name: "key source", outcome: .problem, detail: "\(name) does not hold a key", fix: String(describing: error))]
            }
        case .file(let path):
            let file = KeyFile(path: path)
            do {
                var found: [String] = []
                for group in accessGroups.all {
                    found.append(try file.existingKey(for: group, id: nil).map { "\(group): \($0.idHex)" } ?? "\(group): none yet (made on first open)")
                }
                return [Fact(name: "key source", outcome: .ok, detail: "key file \(path) — \(found.joined(separator: "; "))", fix: nil)]
            } catch {
                return [Fact(name: "key source", outcome: .problem, detail: "key file \(path) cannot be used", fix: String(describing: error))]
            }
        }
    }

    /// The value of `name:value` in an INFO reply.
    static func field(_ name: String, in info: String) -> String? {
        for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix(name + ":") {
            return String(line.dropFirst(name.count + 1)).trimming(.whitespaces)
        }
        return nil
    }
}

extension RedisStore {
    /// Why tracking is not in use, when it is not.
    public var trackingProblem: String? { tracking?.shared.withLock { $0.problem } }

    /// How many partitions each group's index lists (`SCARD` of its sets, one pipeline per node;
    /// may include partitions emptied since, and one listed in a shard and the legacy set twice).
    public func partitionCounts() throws -> [(String, Int)] {
        try state.withLock { state throws(RedisError) in
            var counts: [(String, Int)] = []
            for group in accessGroups.all {
                let keys = layout.groupIndexKeys(group: group)
                var count = 0
                for reply in try state.router.runEach(keys.map { ($0, [Data("SCARD".utf8), $0]) }, operation: "SCARD") {
                    guard case .integer(let members) = reply else {
                        throw .unexpectedReply(endpoint: configuration.endpoint.description, operation: "SCARD", got: reply.typeName)
                    }
                    count += Int(members)
                }
                counts.append((group, count))
            }
            return counts
        }
    }
}
