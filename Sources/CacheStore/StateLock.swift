import Synchronization

#if TOKENCACHE_PTHREAD_LOCKS
#if canImport(Glibc)
import Glibc
#endif

/// The lock of the stores' and the engine's state, as a pthread mutex: only in the ThreadSanitizer
/// build (`scripts/sanitize.sh thread` defines TOKENCACHE_PTHREAD_LOCKS).
///
/// `Mutex` on Linux takes and hands over a contended lock with priority-inheritance futexes inside
/// the (uninstrumented) standard library, so ThreadSanitizer sees neither the acquire nor the
/// release and reports accesses made under the lock by two threads as a race. pthread mutexes are
/// intercepted, so with this lock the sanitizer checks the real synchronization.
public final class StateLock<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(_ value: consuming sending Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
#else
/// The lock of the stores' and the engine's state: `Mutex` (see the TOKENCACHE_PTHREAD_LOCKS variant
/// for the sanitizer build). One definition, used by every module that keeps locked state.
public typealias StateLock<Value> = Mutex<Value>
#endif
