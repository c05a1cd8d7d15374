import CHiredis
import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one deadline of the store call in progress: the command timeout from the moment the call
/// took the store's lock. Every round trip, reconnection and retry of the call shares it, so a call
/// of many round trips (a whole-store read in chunks, a failover's retries) still ends by then.
///
/// Outside a call (a router used on its own) each round trip gets the timeout from its start.
/// Not thread-safe: used under the store's lock, like the router that owns it.
final class RedisCallDeadline: @unchecked Sendable {
    let milliseconds: Int
    /// ``tc_redis_now_ms()`` at which the call in progress must end; nil between calls.
    private(set) var current: Int64?

    init(milliseconds: Int) { self.milliseconds = milliseconds }

    func begin() { current = tc_redis_now_ms() + Int64(milliseconds) }
    func end() { current = nil }

    /// The deadline of a round trip starting now: the call's, else the timeout from now.
    var forRoundTrip: Int64 { current ?? tc_redis_now_ms() + Int64(milliseconds) }

    /// Milliseconds left before ``forRoundTrip`` (never negative).
    var remaining: Int { max(0, Int(forRoundTrip - tc_redis_now_ms())) }
}

extension RedisStore {
    /// The store's state behind its lock; every hold of the lock is one call with one deadline
    /// (``RedisCallDeadline``), begun when the lock is taken and ended when it is released.
    final class CallLock: Sendable {
        private let lock: StateLock<State>

        init(_ state: consuming sending State) { lock = StateLock(state) }

        func withLock<Result, Failure: Error>(
            _ body: (inout sending State) throws(Failure) -> sending Result
        ) throws(Failure) -> sending Result {
            try lock.withLock { (state: inout sending State) throws(Failure) -> sending Result in
                state.router.beginCall()
                defer { state.router.endCall() }
                return try body(&state)
            }
        }
    }
}
