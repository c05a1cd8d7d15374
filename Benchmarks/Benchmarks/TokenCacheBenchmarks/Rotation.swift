import Synchronization

/// A position that moves on across the calls of a benchmark's closure.
///
/// The harness calls a closure once per sample, and a benchmark with `scalingFactor: .one` runs
/// one iteration per call: a position kept in the closure would start over every time, so every
/// sample would look up (or save) the same entry. Kept outside, it walks the whole list.
final class Rotation: Sendable {
    private let position = Mutex(0)

    /// The next position in `0..<count`, `stride` after the last one.
    func next(by stride: Int = 1, in count: Int) -> Int {
        position.withLock { position in
            position = (position &+ stride) % count
            return position
        }
    }
}
