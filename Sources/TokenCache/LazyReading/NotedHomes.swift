import Synchronization

/// Home accounts the calls on an index noted for the engine to act on once they return, or that a
/// call needed every one: the accounts whose deferred access tokens a call decoded
/// (``CacheIndex/deferredUse``, moved into the index after it) and those whose access tokens it
/// found unread (``CacheIndex/accessTokenMisses``, read before the call runs again). Checking is
/// one atomic load, the warm path's only cost.
final class NotedHomes: Sendable {
    struct Noted: Sendable {
        var homes: [String] = []
        var all = false
    }

    private let pending = Atomic<Bool>(false)
    private let noted = Mutex(Noted())

    func note(_ home: String) {
        noted.withLock { if !$0.homes.contains(home) { $0.homes.append(home) } }
        pending.store(true, ordering: .releasing)
    }

    func noteAll() {
        noted.withLock { $0.all = true }
        pending.store(true, ordering: .releasing)
    }

    var isPending: Bool { pending.load(ordering: .acquiring) }

    /// What was noted since the last call, forgotten; `nil` when nothing was.
    func take() -> Noted? {
        guard isPending else { return nil }
        pending.store(false, ordering: .relaxed)
        return noted.withLock { noted in
            defer { noted = Noted() }
            return noted
        }
    }
}
