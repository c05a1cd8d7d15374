import CacheStore

/// Which backend holds the items, and where: the value of `--store` or `TOKENCACHE_STORE`.
///
/// Written forms: `sqlite:PATH` (a relative `PATH` is taken from the current directory) and `memory`.
public enum StoreSpecification: Sendable, Hashable, CustomStringConvertible {
    /// The embedded SQLite store at an absolute file path.
    case sqlite(path: String)
    /// A store that lives only as long as the process.
    case memory

    /// Parses the written form.
    ///
    /// - Parameter currentDirectory: where a relative SQLite path starts.
    public init(parsing text: String, currentDirectory: String) throws(CacheStoreError) {
        if text == "memory" {
            self = .memory
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
        throw .invalidSpecification(text, reason: "known stores are sqlite:PATH and memory")
    }

    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:\(path)"
        case .memory: return "memory"
        }
    }
}
