import CacheStore
import CacheStoreRedis

/// Which backend holds the items, and where: the value of `--store` or `TOKENCACHE_STORE`.
///
/// Written forms (``forms``): `sqlite:PATH` (a relative `PATH` is taken from the current
/// directory), `secret-service` or `secret-service:COLLECTION` (an alias such as `default` or
/// `session`, or a collection's label), `redis://…` or `redis+unix://…` (see
/// ``RedisConfiguration``), and `memory`.
public enum StoreSpecification: Sendable, Hashable, CustomStringConvertible {
    /// The written forms, for help texts and errors: the one place they are listed.
    public static let forms =
        "sqlite:PATH, secret-service[:COLLECTION], redis://HOST[:PORT][/DB][?OPTIONS], redis+unix:///SOCKET[?OPTIONS] or memory"

    /// The embedded SQLite store at an absolute file path.
    case sqlite(path: String)
    /// A store that lives only as long as the process.
    case memory
    /// Items kept in a collection of the Secret Service (the login keyring by default).
    case secretService(collection: String)
    /// Items kept in a Redis server or Redis Cluster.
    case redis(RedisConfiguration)

    /// Parses the written form.
    ///
    /// - Parameter currentDirectory: where a relative SQLite path starts.
    public init(parsing text: String, currentDirectory: String) throws(StoreLocationError) {
        if text == "memory" {
            self = .memory
            return
        }
        if text == "secret-service" {
            self = .secretService(collection: "default")
            return
        }
        if text.hasPrefix("secret-service:") {
            let collection = String(text.dropFirst("secret-service:".count))
            guard !collection.isEmpty else {
                throw .invalidSpecification(text, reason: "secret-service: needs a collection, e.g. secret-service:session, or none for the default")
            }
            self = .secretService(collection: collection)
            return
        }
        if RedisConfiguration.isRedisSpec(text) {
            do {
                self = .redis(try RedisConfiguration(parsing: text))
            } catch {
                guard case .invalidSpecification(let shown, let reason) = error else { throw .invalidSpecification(text, reason: "\(error)") }
                throw .invalidSpecification(shown, reason: reason)
            }
            return
        }
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw .invalidSpecification(text, reason: "sqlite: needs a file path, e.g. sqlite:/tmp/cache.sqlite")
            }
            self = .sqlite(path: path.hasPrefix("/") ? path : currentDirectory + "/" + path)
            return
        }
        throw .invalidSpecification(text, reason: "known stores are \(Self.forms)")
    }

    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:\(path)"
        case .memory: return "memory"
        case .secretService(let collection): return collection == "default" ? "secret-service" : "secret-service:\(collection)"
        case .redis(let configuration): return configuration.description
        }
    }
}
