import Synchronization
import Testing
import TokenCacheC

/// `tokencache_close` racing with calls on other threads, and calls on handles that are not open:
/// never a use after free (run under AddressSanitizer and ThreadSanitizer by scripts/sanitize.sh).
@Suite struct HandleLifetimeTests {
    @Test func callsAfterCloseFailWithBadInput() throws {
        let cache = try #require(ABI.openMemory())
        #expect(ABI.accounts(cache).status == ABI.ok)
        tokencache_close(cache)
        let after = ABI.accounts(cache)
        #expect(after.status == ABI.badInput)
        #expect(after.text?.contains("not open") == true)
        #expect(ABI.changeStamp(cache) == ABI.badInput)
        tokencache_close(cache)  // a second close does nothing
    }

    @Test func handlesThatWereNeverOpenedAreRefused() {
        for value: UInt in [0x10, 0x7777_0000, 0xdead_beef, UInt.max & ~0xF] {
            let outcome = ABI.accounts(OpaquePointer(bitPattern: value))
            #expect(outcome.status == ABI.badInput, "handle \(value)")
        }
        tokencache_close(OpaquePointer(bitPattern: 0xdead_beef))
    }

    @Test func aClosedHandleNeverReachesAStoreOpenedLater() throws {
        let first = try #require(ABI.openMemory())
        tokencache_close(first)
        let second = try #require(ABI.openMemory())
        defer { tokencache_close(second) }
        #expect(first != second)
        #expect(ABI.accounts(first).status == ABI.badInput)
    }

    /// Four threads call the handle in a loop while the main thread closes it: each call succeeds
    /// or, once it started after the close, fails with bad input; nothing crashes.
    @Test func closeRacingWithCallsOnOtherThreads() throws {
        for _ in 0..<20 {
            let cache = try #require(ABI.openMemory())
            let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(cache)))
            let counters = RaceCounters()
            let threads = (0..<4).map { index in
                ThreadRunner {
                    let handle = OpaquePointer(bitPattern: address)
                    var extra = 0
                    while extra < 50 {
                        let wasClosed = counters.closed.load(ordering: .acquiring)
                        let status = index % 2 == 0
                            ? ABI.accounts(handle).status
                            : ABI.search(handle, "AccessToken", query: #"{"client_id":"c"}"#).status
                        if status != ABI.ok && status != ABI.badInput { counters.unexpected.add(1, ordering: .relaxed) }
                        if wasClosed {
                            extra += 1
                            if status != ABI.badInput { counters.unexpected.add(1, ordering: .relaxed) }
                            counters.failuresAfterClose.add(1, ordering: .relaxed)
                        }
                    }
                }
            }
            // Let the threads get going, then close under them.
            for _ in 0..<200 { _ = ABI.changeStamp(cache) }
            tokencache_close(cache)
            counters.closed.store(true, ordering: .releasing)
            threads.forEach { $0.join() }
            #expect(counters.unexpected.load(ordering: .relaxed) == 0)
            #expect(counters.failuresAfterClose.load(ordering: .relaxed) == 200)
        }
    }
}

private final class RaceCounters: Sendable {
    let closed = Atomic<Bool>(false)
    let unexpected = Atomic<Int>(0)
    let failuresAfterClose = Atomic<Int>(0)
}
