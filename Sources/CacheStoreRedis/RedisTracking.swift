import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// In-process invalidation through Redis client-side caching.
///
/// For each master, a *listener* connection (its own thread) is subscribed to
/// `__redis__:invalidate`, and the store's data connection to that master runs
/// `CLIENT TRACKING on REDIRECT <listener> BCAST PREFIX <prefix>: NOLOOP`: every change another
/// client makes to one of the store's keys on that master is pushed to the listener, which bumps
/// ``generation`` and forgets the cached partition. Changes made through this store's own data
/// connections are not echoed (NOLOOP); the store updates its cache itself.
///
/// While any master lacks a live listener or a tracked data connection, the store is *unhealthy*:
/// it revalidates on every call (a `GET` of the revision counter, a read of the partition) and tries
/// to set tracking up again at most once a second.
final class RedisTracking: @unchecked Sendable {
    typealias Endpoint = RedisConfiguration.Endpoint

    struct CachedPartition {
        var revision: UInt64
        var items: [StoreItem]
        var orders: [UInt64]
    }

    struct Shared {
        /// Bumped by every invalidation, lost connection and (re)enabling of tracking.
        var generation: UInt64 = 1
        /// The store revision stamps are made of: the server's as last read or committed. Another
        /// client's commit moves the generation and leaves this as it is (`revisionConfirmed`
        /// false): the stamp still changes, without a round trip to read the revision again.
        var cachedRevision: UInt64?
        /// Whether `cachedRevision` is still the server's revision (no other client changed it
        /// since): what a plan on a standalone server may `WATCH` and compare against.
        var revisionConfirmed = false
        var partitions: [Data: CachedPartition] = [:]
        /// Masters whose data connection is tracked into a live listener.
        var tracked: Set<Endpoint> = []
        var listeners: [Endpoint: Listener] = [:]
        /// Why tracking could not be enabled, for diagnosis.
        var problem: String?
        /// The partitions changed since tracking was last (re)established (see ``RedisChangeLog``).
        var changes = RedisChangeLog()
    }

    static let maximumCachedPartitions = 10_000

    let shared = StateLock(Shared())
    private let configuration: RedisConfiguration
    private let password: String?
    private let layout: RedisLayout

    init(configuration: RedisConfiguration, password: String?, layout: RedisLayout) {
        self.configuration = configuration
        self.password = password
        self.layout = layout
    }

    deinit {
        shared.withLock { state in
            for listener in state.listeners.values { listener.stop() }
        }
    }

    /// Turns tracking on for a new data connection to `endpoint` (starting its listener if needed).
    /// Failure leaves the store working, unhealthy, with the reason kept for diagnosis.
    func enable(_ endpoint: Endpoint, _ connection: RedisConnection) {
        do throws(RedisError) {
            let listener = try shared.withLock { state throws(RedisError) -> Listener in
                if let existing = state.listeners[endpoint], existing.isAlive { return existing }
                state.listeners[endpoint]?.stop()
                let listener = try Listener(endpoint: endpoint, configuration: configuration, password: password, tracking: self)
                state.listeners[endpoint] = listener
                return listener
            }
            _ = try connection.command(["CLIENT", "TRACKING", "off"])
            let reply = try connection.command([
                "CLIENT", "TRACKING", "on", "REDIRECT", String(listener.clientID), "BCAST", "PREFIX", layout.keyPrefix, "NOLOOP",
            ])
            if case .error(let message) = reply {
                throw RedisError.server(endpoint: endpoint.description, operation: "CLIENT TRACKING", message: message)
            }
            shared.withLock { state in
                state.tracked.insert(endpoint)
                state.generation &+= 1
                state.cachedRevision = nil
                state.problem = nil
                state.changes.restart()
            }
        } catch {
            shared.withLock { state in
                state.tracked.remove(endpoint)
                state.generation &+= 1
                state.problem = error.description
                state.changes.restart()
            }
        }
    }

    /// The data connection to `endpoint` is gone: what it tracked is no longer reported.
    func dropped(_ endpoint: Endpoint) {
        shared.withLock { state in
            state.tracked.remove(endpoint)
            state.generation &+= 1
            state.cachedRevision = nil
            state.partitions.removeAll()
            state.changes.restart()
        }
    }

    /// Remembers which partition a hash key holds, so the change log can name it.
    func know(_ partition: RedisLayout.Partition) {
        shared.withLock { $0.changes.know(partition) }
    }

    /// Records a commit of this store's own (NOLOOP keeps it from being echoed to the listener).
    func recordCommit(_ partition: RedisLayout.Partition) {
        shared.withLock { state in
            state.changes.know(partition)
            state.changes.record(partition.key)
        }
    }

    /// Whether every master's changes reach this process.
    func isHealthy(masters: [Endpoint]) -> Bool {
        shared.withLock { state in
            masters.allSatisfy { state.tracked.contains($0) && state.listeners[$0]?.isAlive == true }
        }
    }

    /// Called by a listener with the keys another client changed (`nil`: all of them, e.g. FLUSHALL),
    /// or when it lost its connection.
    fileprivate func invalidate(_ keys: [Data]?, listenerLost endpoint: Endpoint? = nil) {
        shared.withLock { state in
            state.generation &+= 1
            if let endpoint {
                state.tracked.remove(endpoint)
                state.cachedRevision = nil
                state.partitions.removeAll()
                state.changes.restart()
                return
            }
            guard let keys else {
                state.cachedRevision = nil
                state.partitions.removeAll()
                state.changes.restart()
                return
            }
            let partitionPrefix = layout.partitionKeyPrefix
            for key in keys {
                if key == layout.revisionKey { state.revisionConfirmed = false } else { state.partitions[key] = nil }
                if key.starts(with: partitionPrefix) { state.changes.record(key) }
            }
        }
    }

    /// A connection subscribed to `__redis__:invalidate`, read by its own thread.
    final class Listener: @unchecked Sendable {
        let clientID: Int64
        private let connection: RedisConnection
        /// Whether the thread should go on, and whether its connection still works.
        private final class Flags: Sendable {
            let running = StateLock(true)
            let alive = StateLock(true)
        }

        private let flags = Flags()

        var isAlive: Bool { flags.alive.withLock { $0 } }

        init(endpoint: Endpoint, configuration: RedisConfiguration, password: String?, tracking: RedisTracking) throws(RedisError) {
            connection = try RedisConnection(
                endpoint, connectTimeoutMilliseconds: configuration.connectTimeoutMilliseconds,
                commandTimeoutMilliseconds: configuration.commandTimeoutMilliseconds,
                username: configuration.username, password: password)
            guard case .integer(let id) = try connection.command(["CLIENT", "ID"]) else {
                throw .unexpectedReply(endpoint: endpoint.description, operation: "CLIENT ID", got: "not an integer")
            }
            clientID = id
            let reply = try connection.command(["SUBSCRIBE", "__redis__:invalidate"])
            guard case .array(let parts) = reply, parts.first?.text == "subscribe" else {
                throw .unexpectedReply(endpoint: endpoint.description, operation: "SUBSCRIBE", got: reply.typeName)
            }
            let started = DetachedThread.start { [connection, flags, weak tracking] in
                while flags.running.withLock({ $0 }) {
                    let message: RedisValue?
                    do {
                        message = try connection.nextMessage(waitingAtMost: 200)
                    } catch {
                        flags.alive.withLock { $0 = false }
                        tracking?.invalidate(nil, listenerLost: endpoint)
                        return
                    }
                    guard case .array(let parts)? = message, parts.count == 3, parts[0].text == "message" else { continue }
                    switch parts[2] {
                    case .array(let keys): tracking?.invalidate(keys.compactMap { if case .string(let key) = $0 { key } else { nil } })
                    default: tracking?.invalidate(nil)
                    }
                }
                flags.alive.withLock { $0 = false }
            }
            // Without its thread the listener is dead from the start: tracking is not trusted, reads go to Redis.
            if !started { flags.alive.withLock { $0 = false } }
        }

        func stop() { flags.running.withLock { $0 = false } }
    }
}
