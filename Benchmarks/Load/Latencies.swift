import Foundation

/// What a worker does, and what the report shows a row for.
enum Operation: String, CaseIterable {
    /// A silent request: the user's access token.
    case lookup
    /// A save of a known user's new tokens (a refresh).
    case save
    /// A save of a user the store has never seen.
    case firstSignIn = "first-sign-in"
}

/// Latency samples of one operation, in nanoseconds: kept whole (a few million at most) so the
/// merged percentiles are exact.
struct Latencies {
    private(set) var samples: [UInt64] = []

    mutating func add(_ nanoseconds: UInt64) { samples.append(nanoseconds) }
    mutating func add(_ other: Latencies) { samples += other.samples }

    var count: Int { samples.count }

    /// The `fraction` percentile (nearest rank), in nanoseconds; 0 without samples.
    func percentile(_ fraction: Double) -> UInt64 {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    func write(to path: String) throws {
        let data = samples.withUnsafeBytes { Data($0) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func read(from path: String) throws -> Latencies {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var latencies = Latencies()
        latencies.samples = data.withUnsafeBytes { raw in (0..<raw.count / 8).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self) } }
        return latencies
    }
}

/// A monotonic clock in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Microseconds for the tables: "840 µs", "12.3 ms".
func formatDuration(_ nanoseconds: UInt64) -> String {
    let micro = Double(nanoseconds) / 1000
    if micro < 1000 { return "\(Int(micro.rounded())) µs" }
    if micro < 100_000 { return String(format: "%.1f ms", micro / 1000) }
    return "\(Int((micro / 1000).rounded())) ms"
}

/// Bytes for the tables: "6.1 KB", "1.2 MB", "5.9 GB".
func formatBytes(_ bytes: Double) -> String {
    if bytes < 1000 { return "\(Int(bytes.rounded())) B" }
    if bytes < 1e6 { return String(format: "%.1f KB", bytes / 1e3) }
    if bytes < 1e9 { return String(format: "%.1f MB", bytes / 1e6) }
    return String(format: "%.2f GB", bytes / 1e9)
}

/// Thousands separated by commas, as the docs write numbers.
func formatCount(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(digit)
    }
    return value < 0 ? "-" + out : out
}
