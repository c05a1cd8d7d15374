import Synchronization

#if TOKENCACHE_PTHREAD_LOCKS
#if canImport(Glibc)
import Glibc
#endif

/// The store's state lock, as a pthread mutex: only in the ThreadSanitizer build (`scripts/tsan.sh`
/// defines TOKENCACHE_PTHREAD_LOCKS).
///
/// `Mutex` on Linux takes and hands over a contended lock with priority-inheritance futexes inside
/// the (uninstrumented) standard library, so ThreadSanitizer sees neither the acquire nor the
/// release and reports accesses made under the lock by two threads as a race. pthread mutexes are
/// intercepted, so with this lock the sanitizer checks the store's real synchronization.
final class StoreStateLock<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init(_ value: consuming sending Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
#else
/// The store's state lock (see the TOKENCACHE_PTHREAD_LOCKS variant for the sanitizer build).
typealias StoreStateLock<Value> = Mutex<Value>
#endif
