/// What stops the benchmark.
enum LoadError: Error, CustomStringConvertible {
    case usage(String)
    case seeding(String)
    case worker(String)

    var description: String {
        switch self {
        case .usage(let text): "usage: \(text)"
        case .seeding(let text): "seeding: \(text)"
        case .worker(let text): "worker: \(text)"
        }
    }
}
