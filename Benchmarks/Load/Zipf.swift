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
