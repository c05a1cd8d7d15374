#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX thread nobody joins: the invalidation listener's reader, which ends on its own once
/// told to stop.
enum DetachedThread {
    /// Runs `body` on a new detached thread. Returns `false`, with `body` never run, when the
    /// system cannot start a thread.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(run: body))
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let started = pthread_create(&thread, nil, { context in
            Body.run(context)
            return nil
        }, box.toOpaque())
        guard started == 0 else {
            box.release()
            return false
        }
        #if canImport(Darwin)
        pthread_detach(thread!)
        #else
        pthread_detach(thread)
        #endif
        return true
    }

    private final class Body {
        let run: @Sendable () -> Void

        init(run: @escaping @Sendable () -> Void) {
            self.run = run
        }

        /// Runs the body `start` retained for the thread, and lets it go.
        static func run(_ context: UnsafeMutableRawPointer?) {
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        }
    }
}
