import Foundation
import RedisWire

/// The driver's options (`TokenCacheLoad run …`; see scripts/load-benchmark.sh).
struct DriverOptions {
    var cluster = ""
    var standalone: String?
    var users = 2000
    var signInUsers: Int?
    /// Seeder processes: seeding waits on round trips more than on the processor, so more than cores.
    var seeders = 8
    var workload = Workload(users: 2000, seconds: 10, warmUpSeconds: 2, exponent: 0.99, limit: 40_000, processes: 4)
    var docs: String?
    var machine = ""

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        func value(_ name: String) throws -> String {
            guard let next = rest.popFirst() else { throw LoadError.usage("\(name) needs a value") }
            return next
        }
        func number(_ name: String) throws -> Double {
            let text = try value(name)
            guard let number = Double(text.replacingOccurrences(of: ",", with: "").replacingOccurrences(of: "_", with: "")), number >= 0 else {
                throw LoadError.usage("\(name) takes a number, not '\(text)'")
            }
            return number
        }
        while let name = rest.popFirst() {
            switch name {
            case "--cluster": cluster = try value(name)
            case "--standalone": standalone = try value(name)
            case "--users": users = Int(try number(name))
            case "--sign-in-users": signInUsers = Int(try number(name))
            case "--seeders": seeders = max(1, Int(try number(name)))
            case "--seconds": workload.seconds = try number(name)
            case "--warm-up": workload.warmUpSeconds = try number(name)
            case "--processes": workload.processes = max(1, Int(try number(name)))
            case "--limit": workload.limit = Int(try number(name))
            case "--zipf": workload.exponent = try number(name)
            case "--docs": docs = try value(name)
            case "--machine": machine = try value(name)
            default: throw LoadError.usage("unknown option \(name)")
            }
        }
        guard !cluster.isEmpty else { throw LoadError.usage("--cluster SPEC is required") }
        guard users >= SignInScaling.smallUsers else { throw LoadError.usage("--users must be at least \(SignInScaling.smallUsers)") }
        workload.users = users
    }
}

/// Seeds the cluster, runs both layouts' workers, measures first sign-ins at two sizes, and
/// reports (standard output, and the docs' table when `--docs` names the file).
func runDriver(_ options: DriverOptions) throws {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-load-\(getpid())").path
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    log("checking that seeding writes what the engine writes")
    try checkSeeding(scratch: scratch)
    let prefix = "tokencache-load-\(getpid())"
    let cluster = LoadStore(spec: options.cluster, prefix: prefix)
    let workload = options.workload
    let sizes = RedisSizes(nodes: try cluster.nodes())
    log("seeding \(formatCount(options.users)) users (partitions and blobs) with \(options.seeders) processes")
    let memoryBefore = try sizes.info("memory", "used_memory")
    let seedSeconds = try seedInProcesses(cluster, users: 0..<options.users, blobs: true, processes: options.seeders, scratch: scratch)
    let memoryAfter = try sizes.info("memory", "used_memory")
    log("seeded in \(String(format: "%.1f", seedSeconds)) s; reading every key's MEMORY USAGE")
    let usage = try sizes.usage(prefix: prefix)
    var phases: [Layout: PhaseResult] = [:]
    for layout in Layout.allCases {
        log("running \(layout.rawValue): \(workload.processes) processes, \(workload.warmUpSeconds) s warm-up + \(workload.seconds) s")
        phases[layout] = try runPhase(layout, cluster, workload, sizes: sizes, scratch: scratch)
    }
    var scaling: [(String, SignInScaling)] = []
    let signInUsers = options.signInUsers ?? options.users
    if let standalone = options.standalone {
        log("first sign-ins at 1,000 and \(formatCount(signInUsers)) users, standalone Redis")
        let target = LoadStore(spec: standalone, prefix: prefix + "-signin")
        scaling.append(("standalone Redis", try SignInScaling.measure(
            target, users: signInUsers, processes: options.seeders, limit: workload.limit, scratch: scratch)))
    }
    log("first sign-ins at 1,000 and \(formatCount(signInUsers)) users, SQLite")
    let sqlite = LoadStore(spec: "sqlite:\(scratch)/signin/cache.sqlite", prefix: prefix)
    scaling.append(("SQLite", try SignInScaling.measure(sqlite, users: signInUsers, processes: 1, limit: workload.limit, scratch: scratch)))
    let report = LoadReport(
        options: options, seedSeconds: seedSeconds, usedMemory: memoryAfter - memoryBefore, usage: usage, phases: phases,
        scaling: scaling, masters: sizes.nodes.masters.count)
    let table = report.markdown()
    print(table)
    print(report.counterTable())
    // Every seeded user has a token: a lookup that finds none means the layouts disagree with the
    // engine, and the run fails (CI runs it for that too).
    let misses = phases.values.reduce(0) { $0 + $1.misses }
    guard misses == 0 else { throw LoadError.worker("\(misses) lookups of seeded users found no token") }
    if let docs = options.docs { try report.write(table, into: docs) }
}

/// One layout's workers, started together; their results merged.
func runPhase(_ layout: Layout, _ target: LoadStore, _ workload: Workload, sizes: RedisSizes, scratch: String) throws -> PhaseResult {
    let before = try sizes.networkBytes()
    var children: [Child] = []
    for index in 0..<workload.processes {
        children.append(try Child.spawn([
            "work", layout.rawValue, target.spec, target.prefix, String(index), "\(scratch)/\(layout.rawValue)-\(index)",
            String(workload.users), String(workload.seconds), String(workload.warmUpSeconds), String(workload.exponent),
            String(workload.limit), String(workload.processes),
        ]))
    }
    Thread.sleep(forTimeInterval: workload.warmUpSeconds)
    let serversBefore = try Counters.servers(sizes.nodes)
    for (index, child) in children.enumerated() { try child.wait("\(layout.rawValue) worker \(index)") }
    var result = PhaseResult()
    result.counters = try Counters.servers(sizes.nodes) - serversBefore
    result.networkBytes = try sizes.networkBytes() - before
    for index in 0..<workload.processes {
        let output = "\(scratch)/\(layout.rawValue)-\(index)"
        for operation in Operation.allCases {
            result.latencies[operation, default: Latencies()].add(try Latencies.read(from: "\(output).\(operation.rawValue)"))
        }
        result.counters.add(try Counters.read(from: "\(output).counters"))
        let counts = String(decoding: try Data(contentsOf: URL(fileURLWithPath: "\(output).counts")), as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard counts.count == 3 else { throw LoadError.worker("\(output).counts is malformed") }
        result.misses += Int(counts[0])
        result.seconds = max(result.seconds, counts[1])
        result.allOperations += Int(counts[2])
    }
    return result
}

func log(_ text: String) {
    FileHandle.standardError.write(Data("load: \(text)\n".utf8))
}
