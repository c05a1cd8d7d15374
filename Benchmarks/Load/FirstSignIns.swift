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
    /// The same sign-ins' processor time (this thread's): what a loaded machine's scheduling adds
    /// to the latencies is not in it.
    let smallCPU: Latencies
    let largeCPU: Latencies
    /// Bytes this process wrote per timed sign-in (`wchar` of /proc/self/io: a SQLite store's log
    /// frames and checkpoints), the same on a loaded machine as on an idle one.
    let smallWritten: Double
    let largeWritten: Double
    let largeUsers: Int
    let seedSeconds: Double

    static func measure(
        _ target: LoadStore, users: Int, processes: Int, limit: Int, scratch: String, timed: Int = timed
    ) throws -> SignInScaling {
        var seconds = try seedInProcesses(target, users: 0..<smallUsers, blobs: false, processes: processes, scratch: scratch)
        let (small, smallCPU, smallWritten) = try time(target, firstUser: 90_000_000, limit: limit, timed: timed)
        seconds += try seedInProcesses(target, users: smallUsers..<max(smallUsers, users), blobs: false, processes: processes, scratch: scratch)
        let (large, largeCPU, largeWritten) = try time(target, firstUser: 90_100_000, limit: limit, timed: timed)
        return SignInScaling(
            small: small, large: large, smallCPU: smallCPU, largeCPU: largeCPU, smallWritten: smallWritten, largeWritten: largeWritten,
            largeUsers: max(smallUsers, users), seedSeconds: seconds)
    }

    private static func time(_ target: LoadStore, firstUser: Int, limit: Int, timed: Int) throws -> (Latencies, Latencies, Double) {
        let cache = try TokenCache(store: try target.open(tracking: true), configuration: .init(loading: .partitions(limit: limit)))
        var latencies = Latencies()
        var processor = Latencies()
        var writtenBefore = 0
        for offset in 0..<(timed + 5) {
            if offset == 5 { writtenBefore = bytesWritten() }
            let response = LoadUsers.response(firstUser + offset)
            let began = monotonicNanoseconds()
            let beganCPU = threadCPUNanoseconds()
            try cache.save(response, for: LoadUsers.request)
            if offset >= 5 {
                processor.add(threadCPUNanoseconds() - beganCPU)
                latencies.add(monotonicNanoseconds() - began)
            }
        }
        return (latencies, processor, Double(bytesWritten() - writtenBefore) / Double(max(1, timed)))
    }

    /// `wchar` of /proc/self/io: every byte this process handed to `write` and `pwrite` so far (0
    /// where there is no such file).
    private static func bytesWritten() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return 0 }
        let line = text.split(separator: "\n").first { $0.hasPrefix("wchar:") }
        return line.flatMap { Int($0.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    private static func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// The large size's p50 over the small size's.
    var growth: Double { Double(large.percentile(0.5)) / Double(max(1, small.percentile(0.5))) }
}

/// `TokenCacheLoad sign-ins SPEC [--users N] [--timed N] [--processes P]`: the first sign-in rows of
/// the run alone, on one store (a SQLite file needs no servers), with more timed sign-ins for a
/// steadier median; `--processes 0` seeds in this process (for valgrind, which follows no child).
func runSignIns(_ arguments: ArraySlice<String>) throws {
    var rest = arguments
    guard let spec = rest.popFirst() else { throw LoadError.usage("sign-ins SPEC [--users N] [--timed N] [--processes P]") }
    var users = 20_000, timed = 500, processes = 1
    while let name = rest.popFirst() {
        guard let text = rest.popFirst(), let value = Int(text), value > 0 || name == "--processes" && value == 0 else {
            throw LoadError.usage("\(name) takes a positive number")
        }
        switch name {
        case "--users": users = max(SignInScaling.smallUsers, value)
        case "--timed": timed = value
        case "--processes": processes = value
        default: throw LoadError.usage("unknown option \(name)")
        }
    }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-sign-ins-\(getpid())").path
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let target = LoadStore(spec: spec, prefix: "tokencache-sign-ins-\(getpid())")
    let scaling = try SignInScaling.measure(target, users: users, processes: processes, limit: 40_000, scratch: scratch, timed: timed)
    for (size, latencies, processor, written) in [
        (SignInScaling.smallUsers, scaling.small, scaling.smallCPU, scaling.smallWritten),
        (scaling.largeUsers, scaling.large, scaling.largeCPU, scaling.largeWritten),
    ] {
        print("first sign-in at \(formatCount(size)) users: p50 \(formatDuration(latencies.percentile(0.5))), "
            + "p90 \(formatDuration(latencies.percentile(0.9))), p99 \(formatDuration(latencies.percentile(0.99))); "
            + "processor time p50 \(formatDuration(processor.percentile(0.5))); "
            + "written \(String(format: "%.1f", written / 1024)) KB a sign-in (\(latencies.count) timed)")
    }
}
