import Foundation

/// A value made on first use, once, whichever thread asks: the harness registers every benchmark
/// in every process, so what a benchmark needs is made only by the process that runs it.
final class Once<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?
    private let make: () throws -> Value

    init(_ make: @escaping () throws -> Value) { self.make = make }

    func get() throws -> Value {
        lock.lock()
        defer { lock.unlock() }
        if let value { return value }
        let made = try make()
        value = made
        return made
    }
}
