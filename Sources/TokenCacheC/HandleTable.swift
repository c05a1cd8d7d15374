import CacheStore

/// The open `tokencache_t` handles.
///
/// A `tokencache_t *` is a number handed out once per open, never an address: every call looks it
/// up here and holds its own reference to the handle while it runs, so `tokencache_close` racing
/// with calls on other threads never frees what they use (the last call to finish frees it), and a
/// call with a closed, never-opened or garbage handle fails with bad input instead of reading freed
/// memory. Numbers are not reused, so a stale handle never reaches a store opened later.
enum HandleTable {
    private struct State {
        var next: UInt = 1
        var open: [UInt: CacheHandle] = [:]
    }

    private static let state = StateLock(State())

    /// Registers `handle` and returns the `tokencache_t *` that stands for it.
    static func insert(_ handle: CacheHandle) -> OpaquePointer {
        let number = state.withLock { state in
            let number = state.next
            state.next += 1
            state.open[number] = handle
            return number
        }
        // A multiple of 16, so the value looks like an aligned pointer to hosts that check.
        return OpaquePointer(bitPattern: number << 4)!
    }

    private static func number(_ pointer: OpaquePointer) -> UInt? {
        let raw = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer)))
        return raw & 0xF == 0 ? raw >> 4 : nil
    }

    /// The handle `pointer` stands for, retained by the caller for the length of its call.
    static func handle(_ pointer: OpaquePointer) throws -> CacheHandle {
        guard let number = number(pointer), let handle = state.withLock({ $0.open[number] }) else {
            throw BadInput("the cache handle is not open (closed already, or not returned by tokencache_open)")
        }
        return handle
    }

    /// Forgets `pointer`; its handle is freed once the calls still using it return. Returns the
    /// handle so that it is released outside the lock, or nil if `pointer` was not open.
    @discardableResult
    static func remove(_ pointer: OpaquePointer) -> CacheHandle? {
        guard let number = number(pointer) else { return nil }
        return state.withLock { $0.open.removeValue(forKey: number) }
    }
}
