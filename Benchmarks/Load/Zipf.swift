import Foundation

/// Draws users with a Zipf-like popularity: user `k` (0-based) with probability proportional to
/// 1 / (k + 1)^exponent, as YCSB's request distribution does (exponent 0.99). A few users make most
/// requests and most users are seldom asked for, as in a web app's traffic.
struct Zipf {
    private let cumulative: [Double]

    init(count: Int, exponent: Double) {
        var cumulative = [Double](repeating: 0, count: count)
        var total = 0.0
        for rank in 0..<count {
            total += 1 / pow(Double(rank + 1), exponent)
            cumulative[rank] = total
        }
        self.cumulative = cumulative.map { $0 / total }
    }

    /// The share of all draws the `top` most popular users get.
    func share(ofTop top: Int) -> Double { top <= 0 ? 0 : cumulative[min(top, cumulative.count) - 1] }

    func next(using generator: inout some RandomNumberGenerator) -> Int {
        let draw = Double.random(in: 0..<1, using: &generator)
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < draw { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A small, seedable generator (SplitMix64), so each worker's request sequence is reproducible.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
