import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a Redis store lives and how to talk to it: the parsed form of a `redis://` or
/// `redis+unix://` store spec.
///
/// Written forms:
/// - `redis://[user:password@]host[:port][/db][?options]` (port 6379, db 0 by default)
/// - `redis+unix:///path/to/socket[?db=N&options]`
///
/// Options: `prefix` (default `tokencache`), `key` (`file:PATH`, `env:NAME` or `none`; default
/// `env:TOKENCACHE_REDIS_KEY`), `connect_timeout` and `timeout` (milliseconds, defaults 2000 and
/// 3000), `lifetime` (sliding lifetime of a partition: seconds, or a number with `s`, `m`, `h`, `d`),
/// `tracking` (`on`, the default, or `off`), `wait` (replicas that must confirm each commit: `WAIT`;
/// default 0). A password not in the spec is taken from
/// `TOKENCACHE_REDIS_PASSWORD` when the store opens.
public struct RedisConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// Where the server listens.
    public enum Endpoint: Sendable, Hashable, CustomStringConvertible {
        case tcp(host: String, port: Int)
        case unix(path: String)

        public var description: String {
            switch self {
            case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .unix(let path): return "unix:\(path)"
            }
        }
    }

    /// Where the data key that seals payloads comes from; it is never stored in Redis.
    public enum KeySource: Sendable, Hashable, CustomStringConvertible {
        /// A tokencache key file (created 0600 with a new key if missing), one key per access group.
        case file(path: String)
        /// An environment variable holding a Base64 256-bit key, used for every access group.
        case environment(name: String)
        /// Payloads are stored as given (tests and development only).
        case none

        public var description: String {
            switch self {
            case .file(let path): return "file:\(path)"
            case .environment(let name): return "env:\(name)"
            case .none: return "none"
            }
        }
    }

    public var endpoint: Endpoint
    public var database: Int
    public var username: String?
    /// The password given in the spec; ``resolvedPassword(environment:)`` adds the environment's.
    public var password: String?
    /// The first part of every key the store writes.
    public var prefix: String
    public var keySource: KeySource
    public var connectTimeoutMilliseconds: Int
    public var commandTimeoutMilliseconds: Int
    /// A partition untouched (not read nor written) for this many seconds expires; `nil`: never.
    public var lifetimeSeconds: Int?
    /// Whether to use `CLIENT TRACKING` for in-process invalidation.
    public var tracking: Bool
    /// How many replicas must confirm each commit (`WAIT`) before a write call succeeds; 0: none.
    public var replicasToWait: Int

    public init(
        endpoint: Endpoint, database: Int = 0, username: String? = nil, password: String? = nil,
        prefix: String = "tokencache", keySource: KeySource = .environment(name: "TOKENCACHE_REDIS_KEY"),
        connectTimeoutMilliseconds: Int = 2000, commandTimeoutMilliseconds: Int = 3000,
        lifetimeSeconds: Int? = nil, tracking: Bool = true, replicasToWait: Int = 0
    ) {
        self.endpoint = endpoint
        self.database = database
        self.username = username
        self.password = password
        self.prefix = prefix
        self.keySource = keySource
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.commandTimeoutMilliseconds = commandTimeoutMilliseconds
        self.lifetimeSeconds = lifetimeSeconds
        self.tracking = tracking
        self.replicasToWait = replicasToWait
    }

    /// The largest `wait=`: more replicas per master than any deployment runs.
    public static let maximumReplicasToWait = 100

    /// Whether `text` is written as a Redis store spec.
    public static func isRedisSpec(_ text: String) -> Bool {
        text.hasPrefix("redis://") || text.hasPrefix("redis+unix://")
    }

    /// Parses a `redis://` or `redis+unix://` spec.
    public init(parsing text: String) throws(RedisError) {
        func invalid(_ reason: String) -> RedisError { .invalidSpecification(Self.redacted(text), reason: reason) }
        guard Self.isRedisSpec(text), let url = URLComponents(string: text) else {
            throw invalid("a Redis store is redis://[user:password@]host[:port][/db][?options] or redis+unix:///path[?options]")
        }
        var database = 0
        if url.scheme == "redis+unix" {
            guard url.host == nil || url.host == "", url.path.hasPrefix("/") else {
                throw invalid("redis+unix needs an absolute socket path: redis+unix:///path/to/redis.sock")
            }
            self.init(endpoint: .unix(path: url.path))
        } else {
            guard let host = url.host, !host.isEmpty else { throw invalid("redis:// needs a host, e.g. redis://127.0.0.1:6379") }
            let port = url.port ?? 6379
            guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
            let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
            if !path.isEmpty {
                guard let number = Int(path), number >= 0 else { throw invalid("the path names the database, a number: /0") }
                database = number
            }
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            self.init(endpoint: .tcp(host: bare, port: port))
        }
        self.database = database
        self.username = url.user.flatMap { $0.isEmpty ? nil : $0 }
        self.password = url.password
        for item in url.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "db":
                guard let number = Int(value), number >= 0 else { throw invalid("db must be a number") }
                self.database = number
            case "prefix":
                guard !value.isEmpty, !value.contains("{"), !value.contains("}") else {
                    throw invalid("prefix must be non-empty and hold no braces (they would change the hash tag)")
                }
                self.prefix = value
            case "key":
                if value == "none" {
                    self.keySource = .none
                } else if value.hasPrefix("file:"), value.count > 5 {
                    self.keySource = .file(path: String(value.dropFirst(5)))
                } else if value.hasPrefix("env:"), value.count > 4 {
                    self.keySource = .environment(name: String(value.dropFirst(4)))
                } else {
                    throw invalid("key is file:PATH, env:NAME or none")
                }
            case "connect_timeout", "timeout":
                guard let milliseconds = Int(value), milliseconds > 0 else { throw invalid("\(item.name) is a number of milliseconds") }
                if item.name == "timeout" { self.commandTimeoutMilliseconds = milliseconds } else { self.connectTimeoutMilliseconds = milliseconds }
            case "lifetime":
                guard let seconds = Self.seconds(value), seconds > 0 else { throw invalid("lifetime is seconds, or a number with s, m, h or d: 30d") }
                self.lifetimeSeconds = seconds
            case "tracking":
                guard value == "on" || value == "off" else { throw invalid("tracking is on or off") }
                self.tracking = value == "on"
            case "wait":
                guard let replicas = Int(value), (0...Self.maximumReplicasToWait).contains(replicas) else {
                    throw invalid("wait is the number of replicas that must confirm each commit, 0 to \(Self.maximumReplicasToWait)")
                }
                self.replicasToWait = replicas
            default:
                throw invalid("unknown option '\(item.name)' (known: db, prefix, key, connect_timeout, timeout, lifetime, tracking, wait)")
            }
        }
    }

    /// The password to log in with: the spec's, else `TOKENCACHE_REDIS_PASSWORD`.
    public func resolvedPassword(environment: [String: String]) -> String? {
        if let password, !password.isEmpty { return password }
        return environment["TOKENCACHE_REDIS_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The spec in its written form, with any password replaced by `***`.
    public var description: String {
        var options: [String] = []
        if database != 0, case .unix = endpoint { options.append("db=\(database)") }
        if prefix != "tokencache" { options.append("prefix=\(prefix)") }
        if keySource != .environment(name: "TOKENCACHE_REDIS_KEY") { options.append("key=\(keySource)") }
        if connectTimeoutMilliseconds != 2000 { options.append("connect_timeout=\(connectTimeoutMilliseconds)") }
        if commandTimeoutMilliseconds != 3000 { options.append("timeout=\(commandTimeoutMilliseconds)") }
        if let lifetimeSeconds { options.append("lifetime=\(lifetimeSeconds)") }
        if !tracking { options.append("tracking=off") }
        if replicasToWait != 0 { options.append("wait=\(replicasToWait)") }
        let query = options.isEmpty ? "" : "?" + options.joined(separator: "&")
        switch endpoint {
        case .unix(let path):
            return "redis+unix://\(path)\(query)"
        case .tcp:
            let login = username.map { "\($0)\(password == nil ? "" : ":***")@" } ?? (password == nil ? "" : ":***@")
            return "redis://\(login)\(endpoint)\(database == 0 ? "" : "/\(database)")\(query)"
        }
    }

    static func redacted(_ text: String) -> String {
        guard let at = text.firstIndex(of: "@"), let scheme = text.firstRange(of: "://"), scheme.upperBound < at else { return text }
        let login = text[scheme.upperBound..<at]
        guard let colon = login.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }

    static func seconds(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let last = text.last, let unit = units[last] { return Int(text.dropLast()).map { $0 * unit } }
        return Int(text)
    }
}
