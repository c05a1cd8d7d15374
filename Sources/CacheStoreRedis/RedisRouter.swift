@_spi(Pause) import CacheStore
import CHiredis
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends commands to the node serving each key: the one server of a standalone Redis, or the master
/// owning the key's slot in a Redis Cluster (slot map from `CLUSTER SLOTS`, `MOVED` and `ASK`
/// followed). The same configuration works against both: the first call finds out which it is.
///
/// Not thread-safe: the store calls it under its lock.
final class RedisRouter: @unchecked Sendable {
    typealias Endpoint = RedisConfiguration.Endpoint

    let configuration: RedisConfiguration
    private let password: String?
    /// The deadline of the store call in progress, shared by every round trip and retry of it.
    let deadline: RedisCallDeadline
    /// `nil` until the first successful discovery. (Set by discovery, in RedisRouter+Discovery.)
    var isCluster: Bool?
    var slots: [Endpoint?] = []
    /// Masters that have a replica in the last slot map: a failover can replace them.
    var replicated: Set<Endpoint> = []
    /// Every node a slot map named (masters and replicas): where to ask for a new one.
    var knownNodes: [Endpoint] = []
    var slotMapStale = true
    /// Changes whenever the slot map or the kind of server does: what a cached verdict on the
    /// masters (e.g. tracking's health) must be checked against.
    var mapVersion: UInt64 = 0
    /// The masters of the slot map at `version` (finding them walks all 16,384 slots).
    private var mastersOfMap: (version: UInt64, masters: [Endpoint])?
    /// Round trips sent so far, by operation (see ``RedisStore/roundTrips``).
    private(set) var roundTrips: [String: Int] = [:]
    private var connections: [Endpoint: RedisConnection] = [:]
    /// The connection that last sent `WATCH`: the only one a transaction may be committed on.
    private weak var watchingConnection: RedisConnection?
    /// A write of this call that fewer replicas than `wait=` confirmed (``RedisError/notReplicated``).
    var unconfirmedWrite: RedisError?
    /// Called on every new connection (after login), e.g. to turn tracking on; a throw drops it.
    var onConnect: ((Endpoint, RedisConnection) throws(RedisError) -> Void)?
    /// Called when a connection is dropped after an error.
    var onDrop: ((Endpoint) -> Void)?

    init(configuration: RedisConfiguration, password: String?) {
        self.configuration = configuration
        self.password = password
        self.deadline = RedisCallDeadline(milliseconds: configuration.commandTimeoutMilliseconds)
    }

    /// Starts a store call: one deadline from now for all its round trips.
    func beginCall() {
        deadline.begin()
        unconfirmedWrite = nil
    }

    func endCall() { deadline.end() }

    /// Throws when a write of this call was confirmed by fewer replicas than `wait=` asks.
    func checkReplication() throws(RedisError) {
        if let unconfirmedWrite { throw unconfirmedWrite }
    }

    /// Whether the next call asks the server what it is, or re-reads the slot map, first.
    var needsDiscovery: Bool { isCluster != false && slotMapStale }

    /// The masters serving the keyspace: the one server, or every master in the slot map.
    func masters() throws(RedisError) -> [Endpoint] {
        try discoverIfNeeded()
        guard isCluster == true else { return [configuration.endpoint] }
        if let known = mastersOfMap, known.version == mapVersion { return known.masters }
        var seen: [Endpoint] = []
        for case let endpoint? in slots where !seen.contains(endpoint) { seen.append(endpoint) }
        mastersOfMap = (mapVersion, seen)
        return seen
    }

    /// A live connection to `endpoint`, made (and logged in) if needed.
    func connection(_ endpoint: Endpoint) throws(RedisError) -> RedisConnection {
        try liveConnection(endpoint).connection
    }

    /// A live connection to `endpoint`, and whether it was made for this request.
    private func liveConnection(_ endpoint: Endpoint) throws(RedisError) -> (connection: RedisConnection, fresh: Bool) {
        if let existing = connections[endpoint], !existing.isBroken { return (existing, false) }
        connections[endpoint] = nil
        let connection = try RedisConnection(
            endpoint, connectTimeoutMilliseconds: configuration.connectTimeoutMilliseconds,
            commandTimeoutMilliseconds: configuration.commandTimeoutMilliseconds,
            username: configuration.username, password: password,
            database: isCluster == true ? 0 : configuration.database, callDeadline: deadline)
        do throws(RedisError) {
            try onConnect?(endpoint, connection)
        } catch {
            throw error
        }
        connections[endpoint] = connection
        return (connection, true)
    }

    /// Forgets every connection (they close), e.g. after a fault.
    func dropAll() {
        for endpoint in connections.keys { onDrop?(endpoint) }
        connections.removeAll()
        slotMapStale = true
    }

    /// The node serving `slot`: its master in the slot map, or the one server.
    private func owner(of slot: Int) -> Endpoint {
        isCluster == true ? (slots[slot] ?? configuration.endpoint) : configuration.endpoint
    }

    /// Runs `commands`, which all address `key`'s slot, as one pipeline on the node serving it.
    ///
    /// Every round trip shares one deadline: `deadline`, else the store call's (``RedisCallDeadline``).
    /// `MOVED` and `ASK` are followed. In a cluster, what a failover brings — a refused connection,
    /// `CLUSTERDOWN`, `TRYAGAIN`, a reused connection found broken — makes it read the slot map
    /// again and retry, pausing a little longer each time, while the deadline allows and a
    /// failover can still come (``retryable(_:at:)``).
    ///
    /// A transaction (`MULTI`…`EXEC`) relies on the `WATCH` its connection holds, so it is never
    /// retried nor redirected: that would commit without the check. With `wait=N` it is followed by
    /// `WAIT` on the same connection (``unconfirmedWrite``).
    func run(_ commands: [[Data]], key: Data, operation: String, deadline: Int64? = nil) throws(RedisError) -> [RedisValue] {
        let deadline = deadline ?? self.deadline.forRoundTrip
        let transaction = commands.first?.first == Self.multi
        let slot = ClusterSlot.of(key)
        var redirect: (target: Endpoint, asking: Bool)?
        var redirections = 0
        var retry = Backoff(until: deadline)
        while true {
            let failure: RedisError
            do throws(RedisError) {
                try discoverIfNeeded()
                let target = redirect?.target ?? owner(of: slot)
                switch try attempt(commands, on: target, asking: redirect?.asking ?? false, transaction: transaction,
                                   slot: slot, operation: operation, deadline: deadline) {
                case .done(let replies):
                    return replies
                case .redirect(let endpoint, let asking):
                    redirections += 1
                    guard redirections < 8 else {
                        throw RedisError.clusterUnavailable(
                            endpoint: configuration.endpoint.description, reason: "redirections for slot \(slot) did not settle")
                    }
                    redirect = (endpoint, asking)
                    continue
                case .retry(let error):
                    redirect = nil
                    failure = error
                }
            } catch {
                if isCluster == true, error.isConnectionFailure { slotMapStale = true }
                guard !transaction, retryable(error, at: redirect?.target ?? owner(of: slot)) else { throw error }
                redirect = nil
                failure = error
            }
            if transaction { throw failure }
            try retry.pause(orThrow: failure)
        }
    }

    private enum Attempt {
        case done([RedisValue])
        case redirect(Endpoint, asking: Bool)
        /// Nothing ran, or only reads did: worth another attempt on a fresh slot map.
        case retry(RedisError)
    }

    /// One round trip of ``run(_:key:operation:deadline:)`` on `target`.
    private func attempt(
        _ commands: [[Data]], on target: Endpoint, asking: Bool, transaction: Bool, slot: Int, operation: String, deadline: Int64
    ) throws(RedisError) -> Attempt {
        if transaction, let watching = connections[target], !watching.isBroken, watching === watchingConnection {
            // The connection that read under WATCH: the transaction is checked against that read.
        } else if transaction {
            throw .connectionLost(
                endpoint: target.description, operation: operation, reason: "the connection that read under WATCH is gone; nothing was written")
        }
        let (connection, fresh) = try liveConnection(target)
        let waitsForReplicas = waitsForReplicas(commands)
        var sent = asking ? [[Data("ASKING".utf8)]] + commands : commands
        if waitsForReplicas { sent.append(waitCommand()) }
        var replies: [RedisValue]
        roundTrips[operation, default: 0] += 1
        do throws(RedisError) {
            replies = try connection.pipeline(sent, operation: operation, deadline: deadline)
        } catch {
            forget(target)
            // A reused connection to a master that died since the last call: a fresh one may reach
            // its replacement. (A fresh one that breaks is retried only if a failover can come.)
            if !transaction, !fresh, isCluster == true, case .connectionLost = error { return .retry(error) }
            throw error
        }
        if commands.contains(where: { $0.first == Self.watch }) { watchingConnection = connection }
        if asking { replies.removeFirst() }
        let waited = waitsForReplicas ? replies.removeLast() : nil
        guard let redirection = replies.lazy.compactMap(Self.redirection).first else {
            // A transaction that did not run (a watched key changed) wrote nothing to confirm.
            if let waited {
                if !transaction { checkWait(waited, at: target) } else if case .array? = replies.last { checkWait(waited, at: target) }
            }
            return .done(replies)
        }
        if transaction {
            // Following it would commit on a connection without the transaction's WATCH.
            slotMapStale = true
            let answer = replies.lazy.compactMap { if case .error(let message) = $0 { message } else { nil } }.first ?? ""
            throw .clusterUnavailable(endpoint: target.description, reason: "slot \(slot) cannot be written now (\(answer)); nothing was written")
        }
        switch redirection {
        case .moved(let movedSlot, let endpoint):
            if movedSlot < slots.count { slots[movedSlot] = endpoint }
            mapVersion &+= 1
            slotMapStale = true
            return .redirect(endpoint, asking: false)
        case .ask(let endpoint):
            return .redirect(endpoint, asking: true)
        case .tryAgain:
            return .retry(.clusterUnavailable(endpoint: target.description, reason: "TRYAGAIN: slot \(slot) is being migrated"))
        case .down(let message):
            slotMapStale = true
            let error = RedisError.clusterUnavailable(endpoint: target.description, reason: message)
            guard retryable(error, at: target) else { throw error }
            return .retry(error)
        }
    }

    /// Runs one command on `key`'s node.
    func run(_ arguments: [Data], key: Data, operation: String) throws(RedisError) -> RedisValue {
        try run([arguments], key: key, operation: operation)[0]
    }

    /// Runs commands that each address their own key, pipelined per node (in chunks of 1,000), in
    /// order of the requests; a reply redirected meanwhile is run again on its own. All the
    /// pipelines share the call's deadline. In a cluster, requests for a node that cannot be reached
    /// are sent again (to the slot's master in a fresh slot map) while ``retryable(_:at:)`` allows.
    func runEach(_ requests: [(key: Data, command: [Data])], operation: String) throws(RedisError) -> [RedisValue] {
        var replies = [RedisValue](repeating: .null, count: requests.count)
        var pending = Array(requests.indices)
        var retry = Backoff(until: deadline.forRoundTrip)
        while !pending.isEmpty {
            try discoverIfNeeded()
            var byNode: [Endpoint: [Int]] = [:]
            var order: [Endpoint] = []
            for index in pending {
                let target = owner(of: ClusterSlot.of(requests[index].key))
                if byNode[target] == nil { order.append(target) }
                byNode[target, default: []].append(index)
            }
            pending = []
            var failure: RedisError?
            for endpoint in order {
                let indices = byNode[endpoint]!
                for start in stride(from: 0, to: indices.count, by: 1000) {
                    let chunk = indices[start..<min(indices.count, start + 1000)]
                    let connection: RedisConnection
                    let fresh: Bool
                    do throws(RedisError) {
                        (connection, fresh) = try liveConnection(endpoint)
                    } catch {
                        if isCluster == true { slotMapStale = true }
                        guard retryable(error, at: endpoint) else { throw error }
                        failure = error
                        pending += indices[start...]
                        break
                    }
                    var chunkReplies: [RedisValue]
                    roundTrips[operation, default: 0] += 1
                    let waitsForReplicas = waitsForReplicas(chunk.lazy.map { requests[$0].command })
                    do throws(RedisError) {
                        chunkReplies = try connection.pipeline(
                            chunk.map { requests[$0].command } + (waitsForReplicas ? [waitCommand()] : []), operation: operation)
                    } catch {
                        forget(endpoint)
                        guard isCluster == true, case .connectionLost = error, !fresh || retryable(error, at: endpoint) else { throw error }
                        failure = error
                        pending += indices[start...]
                        break
                    }
                    if waitsForReplicas { checkWait(chunkReplies.removeLast(), at: endpoint) }
                    if chunk.contains(where: { requests[$0].command.first == Self.watch }) { watchingConnection = connection }
                    for (index, reply) in zip(chunk, chunkReplies) {
                        if Self.redirection(reply) != nil {
                            replies[index] = try run(requests[index].command, key: requests[index].key, operation: operation)
                        } else {
                            replies[index] = reply
                        }
                    }
                }
            }
            if let failure, !pending.isEmpty { try retry.pause(orThrow: failure) }
        }
        return replies
    }

    /// Whether `error`, met reaching `endpoint`, is worth a retry on a fresh slot map: in a cluster,
    /// a connection failure of a master that has a replica, or `CLUSTERDOWN` while some master has
    /// one (a failover may end it). Without replicas, and on a standalone server, no failover will
    /// come: the error is reported at once.
    private func retryable(_ error: RedisError, at endpoint: Endpoint) -> Bool {
        guard isCluster == true else { return false }
        switch error {
        case .refused, .unreachable, .connectionLost:
            slotMapStale = true
            return replicated.contains(endpoint)
        case .clusterUnavailable:
            return !replicated.isEmpty
        default:
            return false
        }
    }

    /// The pauses between retries: 25 ms, doubling up to 200 ms, never past `until` (the call's
    /// deadline, fixed when the retries start).
    private struct Backoff {
        let until: Int64
        var milliseconds = 25

        init(until: Int64) { self.until = until }

        mutating func pause(orThrow failure: RedisError) throws(RedisError) {
            guard until - tc_redis_now_ms() > Int64(milliseconds) else { throw failure }
            pauseThread(for: .milliseconds(milliseconds))
            milliseconds = min(200, milliseconds * 2)
        }
    }

    private static let multi = Data("MULTI".utf8)
    private static let watch = Data("WATCH".utf8)

    /// Closes the connection to `endpoint` after an error; in a cluster the slot map is read again.
    func forget(_ endpoint: Endpoint) {
        connections[endpoint] = nil
        onDrop?(endpoint)
        if isCluster == true { slotMapStale = true }
    }

    private enum Redirection {
        case moved(Int, Endpoint)
        case ask(Endpoint)
        case tryAgain
        case down(String)
    }

    private static func redirection(_ reply: RedisValue) -> Redirection? {
        guard case .error(let message) = reply else { return nil }
        let words = message.split(separator: " ")
        switch words.first {
        case "MOVED", "ASK":
            guard words.count >= 3, let slot = Int(words[1]), let endpoint = parseAddress(String(words[2])) else { return nil }
            return words[0] == "MOVED" ? .moved(slot, endpoint) : .ask(endpoint)
        case "TRYAGAIN": return .tryAgain
        case "CLUSTERDOWN": return .down(message)
        default: return nil
        }
    }

    /// `host:port` (the host may hold colons: IPv6).
    static func parseAddress(_ text: String) -> Endpoint? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return .tcp(host: host.isEmpty ? "127.0.0.1" : host, port: port)
    }
}
