import Foundation

// The load benchmark (docs/scaling.md, "Load: the web-app shape"). One executable, three roles:
//
//   TokenCacheLoad run --cluster SPEC [--standalone SPEC] [--users N] [--sign-in-users N] [--seconds S]
//                      [--warm-up S] [--processes P] [--limit ITEMS] [--zipf EXPONENT] [--docs docs/scaling.md]
//   TokenCacheLoad sign-ins SPEC [--users N] [--timed N] [--processes P]   (first sign-ins alone, e.g. on sqlite:PATH)
//   TokenCacheLoad seed SPEC PREFIX FROM TO blobs|- SHARED-FILE          (started by run)
//   TokenCacheLoad work LAYOUT SPEC PREFIX INDEX OUTPUT USERS SECONDS WARM-UP ZIPF LIMIT PROCESSES   (started by run)
//
// scripts/load-benchmark.sh starts the servers and runs it.
let arguments = CommandLine.arguments.dropFirst()
do {
    switch arguments.first {
    case "run":
        try runDriver(try DriverOptions(arguments.dropFirst()))
    case "sign-ins":
        try runSignIns(arguments.dropFirst())
    case "seed":
        let values = Array(arguments.dropFirst())
        guard values.count == 6, let from = Int(values[2]), let to = Int(values[3]) else { throw LoadError.usage("seed SPEC PREFIX FROM TO blobs|- FILE") }
        let shared = try seed(LoadStore(spec: values[0], prefix: values[1]), users: from..<to, blobs: values[4] == "blobs")
        try (try shared.encoded()).write(to: URL(fileURLWithPath: values[5]))
    case "work":
        let values = Array(arguments.dropFirst())
        guard values.count == 11, let layout = Layout(rawValue: values[0]), let index = Int(values[3]), let users = Int(values[5]),
              let seconds = Double(values[6]), let warmUp = Double(values[7]), let exponent = Double(values[8]),
              let limit = Int(values[9]), let processes = Int(values[10])
        else { throw LoadError.usage("work LAYOUT SPEC PREFIX INDEX OUTPUT USERS SECONDS WARM-UP ZIPF LIMIT PROCESSES") }
        let workload = Workload(users: users, seconds: seconds, warmUpSeconds: warmUp, exponent: exponent, limit: limit, processes: processes)
        try runWorker(layout, LoadStore(spec: values[1], prefix: values[2]), workload, index: index, output: values[4])
    default:
        throw LoadError.usage("TokenCacheLoad run --cluster SPEC [options] (see scripts/load-benchmark.sh)")
    }
} catch {
    FileHandle.standardError.write(Data("TokenCacheLoad: \(error)\n".utf8))
    exit(1)
}
