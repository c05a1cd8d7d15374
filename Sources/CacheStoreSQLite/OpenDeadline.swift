@_spi(Pause) import CacheStore
import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The time an opener may spend waiting for other processes, and the retry of open-time steps
/// within it.
///
/// SQLite's busy handler covers most lock waits, but not all of those an opener meets: changing the
/// journal mode, a reader meeting another connection's WAL recovery (`SQLITE_BUSY_RECOVERY`) and a
/// read racing a checkpoint can return `SQLITE_BUSY` at once. Every step of opening is idempotent
/// or one transaction, so it is retried until the store's busy timeout runs out, as a write would
/// wait.
struct OpenDeadline {
    let end: ContinuousClock.Instant

    init(timeout: Duration) {
        end = .now + timeout
    }

    /// Runs `step`, again after a short pause while it fails with a busy or locked database and
    /// the deadline has not passed.
    func retrying<T>(_ step: () throws -> T) throws -> T {
        var pause = Duration.milliseconds(1)
        while true {
            do {
                return try step()
            } catch let error as SQLiteStoreError {
                guard case .sqlite(let sqlite) = error, sqlite.isBusy, ContinuousClock.now + pause < end else { throw error }
            }
            // Jittered backoff, so that a crowd of openers does not retry in lock step.
            let jittered = pause * Double.random(in: 0.5...1.5)
            pauseThread(for: jittered)
            pause = min(pause * 2, .milliseconds(50))
        }
    }
}
