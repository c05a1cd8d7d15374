import CacheStore
import Foundation
import Testing
@testable import CacheStoreRedis

/// One deadline per store call: the configured `timeout=` bounds the call as a whole, however many
/// round trips (and retries) it makes, not each round trip.
@Suite("Redis call deadline", .enabled(if: PrivateRedis.available))
struct RedisCallDeadlineTests {
    static let timeout = 1000

    static func open(_ server: SlowRedisServer) throws -> RedisStore {
        let configuration = try RedisConfiguration(
            parsing: "redis://127.0.0.1:\(server.port)?key=none&tracking=off&timeout=\(timeout)&connect_timeout=\(timeout)")
        return try RedisStore(configuration: configuration, accessGroups: try AccessGroups(["group.a"]), environment: [:])
    }

    /// Every round trip answered in 60% of the timeout, each within it: a whole-store read (the
    /// revision, the group index, the revision again) took 180% of the timeout and succeeded when each
    /// round trip had a deadline of its own. With one deadline for the call it fails at the timeout.
    @Test func aCallOfSeveralSlowRoundTripsFailsAtTheTimeout() throws {
        let server = try SlowRedisServer()
        defer { server.finish() }
        let store = try Self.open(server)
        server.delayMilliseconds.store(Self.timeout * 6 / 10, ordering: .releasing)
        let started = ContinuousClock.now
        #expect {
            _ = try store.allItems()
        } throws: { error in
            guard case RedisError.timedOut(_, _, let milliseconds) = error else { return false }
            return milliseconds == Self.timeout && ErrorCategory(of: error) == .unavailable
        }
        #expect(ContinuousClock.now - started < .milliseconds(Self.timeout * 4))  // no hang
        // The deadline is the call's: the next call has its own, and succeeds against a prompt server.
        server.delayMilliseconds.store(0, ordering: .releasing)
        #expect(try store.allItems().isEmpty)
    }

    /// The same server, each round trip answered in 10% of the timeout: the three round trips fit
    /// in one deadline, so the read succeeds (the deadline is not shorter than the timeout).
    @Test func aCallWhoseRoundTripsFitTheTimeoutSucceeds() throws {
        let server = try SlowRedisServer()
        defer { server.finish() }
        let store = try Self.open(server)
        server.delayMilliseconds.store(Self.timeout * 10 / 100, ordering: .releasing)
        let before = server.roundTrips.load(ordering: .acquiring)
        #expect(try store.allItems().isEmpty)
        #expect(server.roundTrips.load(ordering: .acquiring) - before == 3)
    }
}
