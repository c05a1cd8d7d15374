import CacheStore
import Foundation
import TokenCache

/// The request mix every worker runs: 95% silent lookups, 5% saves of which a fifth are first
/// sign-ins, users drawn from a Zipf-like popularity.
struct Workload {
    var users: Int
    var seconds: Double
    var warmUpSeconds: Double
    var exponent: Double
    /// The partition-mode engine's limit, in items.
    var limit: Int
    var processes: Int
}

/// Which layout a worker exercises.
enum Layout: String, CaseIterable {
    /// tokencache's engine in partition mode on the Redis store.
    case partitions
    /// One MSAL JSON blob per user.
    case blob
}

/// A worker process (`work LAYOUT SPEC PREFIX INDEX OUTPUT …`): runs the workload for its seconds
/// and writes each operation's latencies (`OUTPUT.OPERATION`) and its counts (`OUTPUT.counts`:
/// lookups after the warm-up that found no token, seconds measured, operations in all).
func runWorker(_ layout: Layout, _ target: LoadStore, _ workload: Workload, index: Int, output: String) throws {
    let zipf = Zipf(count: workload.users, exponent: workload.exponent)
    var generator = SystemRandomNumberGenerator()
    var recorded: [Operation: Latencies] = [:]
    var misses = 0
    var newUsers = 0
    var serial = 0
    var total = 0
    let lookup: (Int) throws -> Bool
    let save: (Int, Int) throws -> Void
    var engine: TokenCache?
    switch layout {
    case .partitions:
        let cache = try TokenCache(store: try target.open(tracking: true), configuration: .init(loading: .partitions(limit: workload.limit)))
        engine = cache
        lookup = { try cache.accessToken(LoadUsers.query($0)) != nil }
        save = { try cache.save(LoadUsers.response($0, serial: $1), for: LoadUsers.request) }
    case .blob:
        let blobs = BlobCache(target: target, nodes: try target.nodes())
        lookup = { try blobs.lookup($0) }
        save = { try blobs.save($0, serial: $1) }
    }
    let start = monotonicNanoseconds()
    let warmUpEnd = start + UInt64(workload.warmUpSeconds * 1e9)
    let end = warmUpEnd + UInt64(workload.seconds * 1e9)
    var now = start
    var counted: Counters?
    while now < end {
        if counted == nil && now >= warmUpEnd { counted = Counters.worker(cache: engine) }
        let draw = Int.random(in: 0..<100, using: &generator)
        let operation: Operation = draw < 95 ? .lookup : draw < 99 ? .save : .firstSignIn
        let began = now
        switch operation {
        case .lookup:
            if try !lookup(zipf.next(using: &generator)) && began >= warmUpEnd { misses += 1 }
        case .save:
            serial += 1
            try save(zipf.next(using: &generator), serial)
        case .firstSignIn:
            // Users past the seeded ones, disjoint between workers and between the two layouts.
            let user = workload.users + (layout == .blob ? 50_000_000 : 0) + newUsers * workload.processes + index
            newUsers += 1
            try save(user, 0)
        }
        now = monotonicNanoseconds()
        total += 1
        if began >= warmUpEnd { recorded[operation, default: Latencies()].add(now - began) }
    }
    for operation in Operation.allCases { try (recorded[operation] ?? Latencies()).write(to: "\(output).\(operation.rawValue)") }
    try (Counters.worker(cache: engine) - (counted ?? Counters())).write(to: "\(output).counters")
    let counts = "\(misses) \(Double(end - warmUpEnd) / 1e9) \(total)\n"
    try Data(counts.utf8).write(to: URL(fileURLWithPath: "\(output).counts"))
}

/// The merged results of a layout's workers.
struct PhaseResult {
    var latencies: [Operation: Latencies] = [:]
    var misses = 0
    var seconds = 0.0
    /// Bytes into and out of every master during the phase (`INFO stats`), warm-up included.
    var networkBytes = 0.0
    /// Operations in the phase, warm-up included (for bytes per operation).
    var allOperations = 0
    /// The workers' counters after their warm-up, and the servers' from the end of the warm-up to
    /// the workers' exit.
    var counters = Counters()

    var operations: Int { latencies.values.reduce(0) { $0 + $1.count } }
    var throughput: Double { seconds > 0 ? Double(operations) / seconds : 0 }
    /// The p99 of every request, whatever its operation.
    var p99: UInt64 {
        var all = Latencies()
        for latencies in latencies.values { all.add(latencies) }
        return all.percentile(0.99)
    }
}
