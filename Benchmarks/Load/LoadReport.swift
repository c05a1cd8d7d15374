import Foundation

/// The Markdown the run writes: the workload, both layouts' results, and the issue's goals with
/// what was measured. `--docs` replaces the table between docs/scaling.md's `load-results` markers.
struct LoadReport {
    static let begin = "<!-- load-results:begin -->"
    static let end = "<!-- load-results:end -->"

    let options: DriverOptions
    let seedSeconds: Double
    /// `used_memory` after seeding minus before, summed over the masters.
    let usedMemory: Double
    let usage: [String: RedisSizes.Usage]
    let phases: [Layout: PhaseResult]
    let scaling: [(String, SignInScaling)]
    let masters: Int

    private static let kindNames = [
        "p": "partitions (`p:{PID}`)", "g": "group index (`g:GID:SSS`)", "l": "lookup-key index (`l:GID:NNN`)",
        "lc": "lookup keys complete (`lc:GID`)", "rev": "store revision (`rev`)", "blob": "one blob per user (`blob:HOME`)",
    ]

    func markdown() -> String {
        let workload = options.workload
        let users = formatCount(options.users)
        var lines: [String] = []
        lines.append("\(users) users of one app in one tenant (an account, an ID token, a refresh token and an access token each), "
            + "seeded in \(String(format: "%.0f", seedSeconds)) s with both layouts (\(options.seeders) processes); \(workload.processes) processes against "
            + "\(masters == 1 ? "one Redis server" : "a \(masters)-master cluster") for \(formatSeconds(workload.seconds)) after "
            + "\(formatSeconds(workload.warmUpSeconds)) of warm-up; users drawn with Zipf popularity (exponent \(workload.exponent): "
            + "the 1% most asked-for users get \(Int((100 * Zipf(count: options.users, exponent: workload.exponent).share(ofTop: options.users / 100)).rounded()))% of the requests); "
            + "95% silent lookups, 4% saves of known users, 1% first sign-ins; the engine in partition mode "
            + "(`limit: \(formatCount(workload.limit))` items a process)\(options.machine.isEmpty ? "" : "; \(options.machine)").")
        lines.append("")
        lines.append("| layout | requests/s | p99, all requests | lookup p50 (p99) | save p50 (p99) | first sign-in p50 (p99) | Redis memory per user | network per request |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for layout in Layout.allCases {
            guard let phase = phases[layout] else { continue }
            func cell(_ operation: Operation) -> String {
                let latencies = phase.latencies[operation] ?? Latencies()
                return latencies.count == 0 ? "—" : "\(formatDuration(latencies.percentile(0.5))) (\(formatDuration(latencies.percentile(0.99))))"
            }
            let name = layout == .partitions ? "tokencache, partitions" : "one blob per user"
            lines.append("| \(name) | \(formatCount(Int(phase.throughput.rounded()))) | \(formatDuration(phase.p99)) | "
                + "\(cell(.lookup)) | \(cell(.save)) | \(cell(.firstSignIn)) | \(formatBytes(memory(layout) / Double(options.users))) | "
                + "\(formatBytes(phase.networkBytes / Double(max(1, phase.allOperations)))) |")
        }
        let misses = phases.values.reduce(0) { $0 + $1.misses }
        if misses > 0 { lines += ["", "\(formatCount(misses)) lookups found no token."] }
        lines.append("")
        lines.append("| keys (\(users) users) | count | memory | largest |")
        lines.append("|---|---|---|---|")
        for (kind, use) in usage.sorted(by: { $0.value.bytes > $1.value.bytes }) {
            lines.append("| \(Self.kindNames[kind] ?? kind) | \(formatCount(use.keys)) | \(formatBytes(use.bytes)) | \(formatBytes(use.largestBytes))\(use.largestAccount.map { " (`\($0.prefix(40))`)" } ?? "") |")
        }
        lines.append("")
        lines.append("| goal | measured | met |")
        lines.append("|---|---|---|")
        for (store, scaling) in scaling {
            let budget: UInt64 = store == "SQLite" ? 400_000 : 1_000_000
            let flat = scaling.growth <= 1.5
            lines.append("| first sign-in, \(store): the same at 1,000 and \(formatCount(scaling.largeUsers)) users (≤ 1.5×), "
                + "p50 ≤ \(formatDuration(budget)) | \(formatDuration(scaling.small.percentile(0.5))) → "
                + "\(formatDuration(scaling.large.percentile(0.5))) (\(String(format: "%.1f", scaling.growth))×) | "
                + "\(flat && scaling.large.percentile(0.5) <= budget && scaling.small.percentile(0.5) <= budget ? "yes" : "no") |")
        }
        let largest = usage.max { $0.value.largestBytes < $1.value.largestBytes }
        if let largest {
            lines.append("| no Redis value larger than 1 MB | largest key: \(Self.kindNames[largest.key] ?? largest.key)"
                + "\(largest.value.largestAccount.map { " `\($0.prefix(40))`" } ?? ""), \(formatBytes(largest.value.largestBytes)) | \(largest.value.largestBytes <= 1_048_576 ? "yes" : "no") |")
        }
        if let mine = phases[.partitions], let blob = phases[.blob], blob.throughput > 0 {
            let ratio = mine.throughput / blob.throughput
            lines.append("| throughput ≥ 5× one blob per user, at the same p99 | \(String(format: ratio < 1 ? "%.2f" : "%.1f", ratio))× "
                + "(p99 \(formatDuration(mine.p99)) against \(formatDuration(blob.p99))) | \(ratio >= 5 && mine.p99 <= blob.p99 ? "yes" : "no") |")
        }
        return ([Self.begin] + lines + [Self.end]).joined(separator: "\n")
    }

    /// Where the requests' time goes: processor time and Redis commands per request (every
    /// request after the warm-up), and the engine's and the store's counters per 1,000 requests.
    /// Printed after the table, not written into the docs.
    func counterTable() -> String {
        let layouts = Layout.allCases.filter { phases[$0] != nil }
        var names = Set<String>()
        for layout in layouts { names.formUnion(phases[layout]!.counters.values.keys) }
        var lines = ["", "| per request, after the warm-up | " + layouts.map(\.rawValue).joined(separator: " | ") + " |",
                     "|---|" + String(repeating: "---|", count: layouts.count)]
        func row(_ label: String, _ value: (PhaseResult) -> Double, format: String) {
            // Commands and round trips no layout made during the phase (setup's) are left out.
            guard label == "requests" || layouts.contains(where: { value(phases[$0]!) >= 0.0005 }) || label.hasPrefix("engine ") else { return }
            lines.append("| \(label) | " + layouts.map { String(format: format, value(phases[$0]!)) }.joined(separator: " | ") + " |")
        }
        func perRequest(_ phase: PhaseResult, _ name: String) -> Double { phase.counters[name] / Double(max(1, phase.operations)) }
        row("requests", { Double($0.operations) }, format: "%.0f")
        row("client CPU µs", { perRequest($0, "client CPU µs") }, format: "%.0f")
        row("server CPU µs", { perRequest($0, "server CPU µs") }, format: "%.0f")
        row("Redis commands", { perRequest($0, "commands") }, format: "%.3f")
        for name in names.filter({ $0.hasPrefix("commands: ") }).sorted() {
            row(name, { perRequest($0, name) }, format: "%.3f")
        }
        row("round trips", { perRequest($0, "round trips") }, format: "%.3f")
        for name in names.filter({ $0.hasPrefix("round trips: ") }).sorted() {
            row(name, { perRequest($0, name) }, format: "%.3f")
        }
        for name in names.filter({ $0.hasPrefix("engine ") }).sorted() {
            row(name + " (per 1,000)", { 1000 * perRequest($0, name) }, format: "%.1f")
        }
        return lines.joined(separator: "\n")
    }

    /// Bytes a layout's keys take (`MEMORY USAGE`).
    private func memory(_ layout: Layout) -> Double {
        usage.filter { layout == .blob ? $0.key == "blob" : $0.key != "blob" }.reduce(0) { $0 + $1.value.bytes }
    }

    private func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }

    /// Replaces the table between the markers of `path`; the markers must be there once.
    func write(_ table: String, into path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let start = text.range(of: Self.begin), let stop = text.range(of: Self.end), start.upperBound <= stop.lowerBound else {
            throw LoadError.usage("\(path) has no \(Self.begin) … \(Self.end) section to replace")
        }
        try (String(text[..<start.lowerBound]) + table + String(text[stop.upperBound...])).write(toFile: path, atomically: true, encoding: .utf8)
    }
}
