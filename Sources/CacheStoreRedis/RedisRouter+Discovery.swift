#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RedisRouter {
    /// A cluster's slot map as `CLUSTER SLOTS` gives it: the master of each slot, the masters that
    /// have a replica (a failover can replace them), and every node named (masters and replicas).
    struct SlotMap {
        var owners: [Endpoint?]
        var replicated: Set<Endpoint>
        var nodes: [Endpoint]
    }

    /// Finds out whether the server is a cluster, and reads the slot map when it is (again when
    /// stale): from the configured node, else from any node the last map named, replicas included
    /// (after a failover the configured node may be the dead master).
    func discoverIfNeeded() throws(RedisError) {
        guard isCluster != false, slotMapStale else { return }
        var candidates = [configuration.endpoint]
        for endpoint in knownNodes where !candidates.contains(endpoint) { candidates.append(endpoint) }
        var lastError: RedisError?
        for endpoint in candidates {
            do throws(RedisError) {
                let connection = try connection(endpoint)
                let reply: RedisValue
                do throws(RedisError) {
                    reply = try connection.command(["CLUSTER", "SLOTS"])
                } catch {
                    forget(endpoint)
                    throw error
                }
                if case .error(let message) = reply {
                    if message.contains("cluster support disabled") {
                        isCluster = false
                        slotMapStale = false
                        mapVersion &+= 1
                        return
                    }
                    throw RedisError.server(endpoint: endpoint.description, operation: "CLUSTER SLOTS", message: message)
                }
                let map = try Self.slotMap(reply, asked: endpoint)
                slots = map.owners
                replicated = map.replicated
                for node in map.nodes where !knownNodes.contains(node) { knownNodes.append(node) }
                isCluster = true
                slotMapStale = false
                mapVersion &+= 1
                return
            } catch {
                lastError = error
            }
        }
        // With a map already known, carry on with it: the node that owns the slot may still answer.
        if isCluster == true, !slots.isEmpty { return }
        throw lastError ?? .clusterUnavailable(endpoint: configuration.endpoint.description, reason: "no node answered")
    }

    /// Parses `CLUSTER SLOTS`: `[[start, end, [host, port, id], replicas…], …]`.
    static func slotMap(_ reply: RedisValue, asked: Endpoint) throws(RedisError) -> SlotMap {
        guard case .array(let ranges) = reply else {
            throw .unexpectedReply(endpoint: asked.description, operation: "CLUSTER SLOTS", got: reply.typeName)
        }
        var map = SlotMap(owners: [Endpoint?](repeating: nil, count: ClusterSlot.count), replicated: [], nodes: [])
        func endpoint(_ node: RedisValue) -> Endpoint? {
            guard case .array(let fields) = node, fields.count >= 2, case .integer(let port) = fields[1], (1...65535).contains(port) else {
                return nil
            }
            var host = fields[0].text ?? ""
            if host.isEmpty || host == "?" {
                if case .tcp(let askedHost, _) = asked { host = askedHost } else { host = "127.0.0.1" }
            }
            return .tcp(host: host, port: Int(port))
        }
        for range in ranges {
            guard case .array(let fields) = range, fields.count >= 3,
                case .integer(let start) = fields[0], case .integer(let end) = fields[1],
                let master = endpoint(fields[2]), start >= 0, end < ClusterSlot.count, start <= end
            else {
                throw .unexpectedReply(endpoint: asked.description, operation: "CLUSTER SLOTS", got: "a malformed slot range")
            }
            for slot in Int(start)...Int(end) { map.owners[slot] = master }
            let replicas = fields.dropFirst(3).compactMap(endpoint)
            if !replicas.isEmpty { map.replicated.insert(master) }
            for node in [master] + replicas where !map.nodes.contains(node) { map.nodes.append(node) }
        }
        return map
    }
}
