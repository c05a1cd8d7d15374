import Foundation
import TokenCache

/// A first sign-in's cost with 1,000 users signed in and with many: the store seeded to each size,
/// then first sign-ins timed one by one through a fresh partition-mode engine in this process
/// (after 5 untimed ones, which load the shared partitions).
struct SignInScaling {
    static let smallUsers = 1000
    static let timed = 50

    let small: Latencies
    let large: Latencies
    let largeUsers: Int
    let seedSeconds: Double

    static func measure(_ target: LoadStore, users: Int, processes: Int, limit: Int, scratch: String) throws -> SignInScaling {
        var seconds = try seedInProcesses(target, users: 0..<smallUsers, blobs: false, processes: processes, scratch: scratch)
        let small = try time(target, firstUser: 90_000_000, limit: limit)
        seconds += try seedInProcesses(target, users: smallUsers..<max(smallUsers, users), blobs: false, processes: processes, scratch: scratch)
        let large = try time(target, firstUser: 90_100_000, limit: limit)
        return SignInScaling(small: small, large: large, largeUsers: max(smallUsers, users), seedSeconds: seconds)
    }

    private static func time(_ target: LoadStore, firstUser: Int, limit: Int) throws -> Latencies {
        let cache = try TokenCache(store: try target.open(tracking: true), configuration: .init(loading: .partitions(limit: limit)))
        var latencies = Latencies()
        for offset in 0..<(timed + 5) {
            let began = monotonicNanoseconds()
            try cache.save(LoadUsers.response(firstUser + offset), for: LoadUsers.request)
            if offset >= 5 { latencies.add(monotonicNanoseconds() - began) }
        }
        return latencies
    }

    /// The large size's p50 over the small size's.
    var growth: Double { Double(large.percentile(0.5)) / Double(max(1, small.percentile(0.5))) }
}
