#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs closures on POSIX threads of a chosen stack size, as a C host's threads are.
final class ThreadRunner: @unchecked Sendable {
    private let body: () -> Void
    private var thread = pthread_t()

    /// Starts `body` on a new thread with `stackSize` bytes of stack.
    init(stackSize: Int = 512 * 1024, _ body: @escaping () -> Void) {
        self.body = body
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        precondition(pthread_attr_setstacksize(&attributes, stackSize) == 0, "stack size refused")
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, &attributes, { context in
            let runner = Unmanaged<ThreadRunner>.fromOpaque(context!).takeRetainedValue()
            runner.body()
            return nil
        }, context)
        precondition(status == 0, "pthread_create failed: \(status)")
    }

    /// Waits for the thread to return.
    func join() {
        pthread_join(thread, nil)
    }
}
