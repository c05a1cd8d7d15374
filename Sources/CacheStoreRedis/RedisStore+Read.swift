import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RedisStore {
    /// One partition as read from the server: its revision and items by field.
    struct Snapshot {
        var revision: UInt64 = 0
        /// Items by hash field, with their insertion order.
        var entries: [Data: (item: StoreItem, order: UInt64)] = [:]
        /// The partition's lookup keys (its `.keys` field), sorted.
        var lookupKeys: [String] = []
        /// Item fields that cannot be vouched for, skipped by reads (see ``DamagedItem``).
        var damaged: [Data: DamagedItem] = [:]
        /// The key holds another type than a hash: the whole partition is one damaged record (keyed
        /// by the key itself in `damaged`), read as empty; a write or a removal replaces it.
        var wrongType = false

        /// The items in insertion order.
        var ordered: [(item: StoreItem, order: UInt64)] {
            entries.values.sorted {
                $0.order != $1.order ? $0.order < $1.order : $0.item.service.utf8.lexicographicallyPrecedes($1.item.service.utf8)
            }
        }
    }

    /// The command that reads a partition: `HGETALL`, or the script that also slides its lifetime.
    func readCommand(_ key: Data) -> [Data] {
        if let lifetime = configuration.lifetimeSeconds {
            return [Data("EVAL".utf8), Data(RedisScripts.touchRead.utf8), Data("1".utf8), key, Data(String(lifetime * 1000).utf8)]
        }
        return [Data("HGETALL".utf8), key]
    }

    /// Reads one partition; with `watching`, under `WATCH` on the same connection, for a commit.
    func readPartition(
        _ partition: RedisLayout.Partition, watching: Bool = false, _ state: inout State, attributesFromHash: Bool = false
    ) throws -> Snapshot {
        tracking?.know(partition)
        let read = readCommand(partition.key)
        let commands = watching ? [[Data("WATCH".utf8), partition.key], read] : [read]
        let reply = try state.router.run(commands, key: partition.key, operation: "read partition").last!
        if attributesFromHash { return try snapshot(reply, group: nil, account: nil, key: partition.key) }
        return try snapshot(reply, group: partition.group, account: partition.account, key: partition.key)
    }

    /// Parses a partition's `HGETALL` reply, opening sealed payloads. With `group` and `account`
    /// nil, they are taken from the hash's own fields (a partition found through the group index).
    func snapshot(_ reply: RedisValue, group: String?, account: String?, key: Data) throws -> Snapshot {
        let name = String(decoding: key, as: UTF8.self)
        if case .error(let message) = reply {
            if Self.isWrongType(message) { return unreadable(group: group, account: account, key: key) }
            throw RedisError.server(endpoint: configuration.endpoint.description, operation: "read partition \(name)", message: message)
        }
        guard case .array(let flat) = reply, flat.count % 2 == 0 else {
            throw RedisError.unexpectedReply(endpoint: configuration.endpoint.description, operation: "read partition \(name)", got: reply.typeName)
        }
        var fields: [(Data, Data)] = []
        fields.reserveCapacity(flat.count / 2)
        for index in stride(from: 0, to: flat.count, by: 2) {
            guard case .string(let field) = flat[index], case .string(let value) = flat[index + 1] else {
                throw RedisError.unexpectedReply(endpoint: configuration.endpoint.description, operation: "read partition \(name)", got: "a non-string field")
            }
            fields.append((field, value))
        }
        var snapshot = Snapshot()
        var group = group
        var account = account
        for (field, value) in fields {
            if field == RedisLayout.revisionField { snapshot.revision = UInt64(String(decoding: value, as: UTF8.self)) ?? 0 }
            if field == RedisLayout.lookupKeysField { snapshot.lookupKeys = RedisLookupKeys.decode(value) ?? [] }
            if group == nil, field == RedisLayout.groupField { group = String(decoding: value, as: UTF8.self) }
            if account == nil, field == RedisLayout.accountField { account = String(decoding: value, as: UTF8.self) }
        }
        // A hash under the prefix without its attributes was not written by tokencache: its items
        // are damaged, named with the group the index listed it under and an empty account.
        let unattributed = group == nil || account == nil
        let itemGroup = group ?? ""
        let itemAccount = account ?? ""
        for (field, value) in fields {
            guard field.first != UInt8(ascii: ".") else { continue }  // metadata: .group, .account, .rev, .keys
            guard let (type, service) = RedisLayout.parseField(field) else {
                // Not an item's field (`TYPE|SERVICE`): written by something else. Named by the field.
                let identity = ItemIdentity(accessGroup: itemGroup, account: itemAccount, service: String(decoding: field, as: UTF8.self), type: nil)
                snapshot.damaged[field] = DamagedItem(identity: identity, reason: .unreadableField, location: "Redis key \(name)")
                continue
            }
            let identity = ItemIdentity(accessGroup: itemGroup, account: itemAccount, service: service, type: type)
            guard !unattributed, let record = RedisRecord.decode(value) else {
                snapshot.damaged[field] = DamagedItem(identity: identity, reason: .malformedEnvelope)
                continue
            }
            var item = StoreItem(
                accessGroup: itemGroup, account: itemAccount, service: service, generic: record.generic, type: type,
                data: record.payload, created: record.created, modified: record.modified)
            if record.sealed {
                do {
                    item.data = try keys.open(record.payload, identity)
                } catch EncryptionError.authenticationFailed {
                    snapshot.damaged[field] = DamagedItem(identity: identity, reason: .failedAuthentication)
                    continue
                } catch EncryptionError.malformedEnvelope, EncryptionError.unsupportedEnvelope {
                    snapshot.damaged[field] = DamagedItem(identity: identity, reason: .malformedEnvelope)
                    continue
                }
                // sealedWithAnotherKey and a missing key throw: the instance is configured with the
                // wrong key (every item would fail), which must be said rather than read as damage.
            } else if keys.keys != nil {
                // Every write of a store with keys seals: a plain record was not written by tokencache.
                snapshot.damaged[field] = DamagedItem(identity: identity, reason: .unsealedInSealedGroup)
                continue
            }
            snapshot.entries[field] = (item, record.order)
        }
        return snapshot
    }

    /// Whether an error reply says the key holds another type than the command expects.
    static func isWrongType(_ message: String) -> Bool { message.contains("WRONGTYPE") }

    /// A partition whose key holds another type than a hash (written by something else): read as
    /// empty, with one damaged record named by its key.
    func unreadable(group: String?, account: String?, key: Data) -> Snapshot {
        var snapshot = Snapshot()
        snapshot.wrongType = true
        snapshot.damaged[key] = DamagedItem(
            identity: ItemIdentity(accessGroup: group ?? "", account: account ?? "", service: "", type: nil),
            reason: .unreadablePartition, location: "Redis key \(String(decoding: key, as: UTF8.self)) (not a hash)")
        return snapshot
    }

    /// The partition's items, from the tracking cache when it is current, else read (and cached).
    func cachedOrRead(_ partition: RedisLayout.Partition, _ state: inout State) throws -> RedisTracking.CachedPartition {
        try cachedOrRead([partition], &state)[0]
    }

    /// The partitions' items, in order: each from the tracking cache when it is current, the others
    /// read in one pipeline per node (and cached).
    func cachedOrRead(_ partitions: [RedisLayout.Partition], _ state: inout State) throws -> [RedisTracking.CachedPartition] {
        var answers = [RedisTracking.CachedPartition?](repeating: nil, count: partitions.count)
        let tracked = try healthy(&state)
        var generation: UInt64 = 0
        if tracked, let tracking {
            generation = tracking.shared.withLock { shared in
                // A sliding lifetime needs the read to reach the server now and then; cached reads
                // skip it, so with a lifetime the cache is used only for the revision check's benefit.
                if configuration.lifetimeSeconds == nil {
                    for (index, partition) in partitions.enumerated() {
                        answers[index] = shared.partitions[partition.key]
                        // Known in this epoch, so that its changes are named (the copy may predate it).
                        if answers[index] != nil { shared.changes.know(partition) }
                    }
                }
                return shared.generation
            }
        }
        let missing = answers.indices.filter { answers[$0] == nil }
        guard !missing.isEmpty else { return answers.map { $0! } }
        for index in missing { tracking?.know(partitions[index]) }
        let replies = try state.router.runEach(
            missing.map { (partitions[$0].key, readCommand(partitions[$0].key)) }, operation: "read partition")
        for (index, reply) in zip(missing, replies) {
            let partition = partitions[index]
            let snapshot = try snapshot(reply, group: partition.group, account: partition.account, key: partition.key)
            let ordered = snapshot.ordered
            let fresh = RedisTracking.CachedPartition(revision: snapshot.revision, items: ordered.map(\.item), orders: ordered.map(\.order))
            if tracked, !snapshot.wrongType { remember(fresh, key: partition.key, ifGeneration: generation) }
            answers[index] = fresh
        }
        return answers.map { $0! }
    }

    /// Caches a partition read while no invalidation arrived since `generation`.
    func remember(_ partition: RedisTracking.CachedPartition, key: Data, ifGeneration generation: UInt64?) {
        tracking?.shared.withLock { shared in
            if let generation, shared.generation != generation { return }
            if shared.partitions.count >= RedisTracking.maximumCachedPartitions, shared.partitions[key] == nil {
                shared.partitions.removeAll(keepingCapacity: true)
            }
            shared.partitions[key] = partition
        }
    }

    /// The partition ids each group's index lists: every shard and the legacy set, in one pipeline
    /// per node, each id once.
    func partitionIDs(groups: [String], _ state: inout State) throws(RedisError) -> [(group: String, id: String)] {
        let keys = groups.map { layout.groupIndexKeys(group: $0) }
        let requests = keys.flatMap { $0.map { (key: $0, command: [Data("SMEMBERS".utf8), $0]) } }
        let replies = try state.router.runEach(requests, operation: "SMEMBERS group index")
        var ids: [(String, String)] = []
        var position = 0
        for (group, groupKeys) in zip(groups, keys) {
            var seen = Set<String>()
            for _ in groupKeys {
                let reply = replies[position]
                position += 1
                guard case .array(let members) = reply else {
                    throw .unexpectedReply(endpoint: configuration.endpoint.description, operation: "SMEMBERS group index", got: reply.typeName)
                }
                for case .string(let member) in members {
                    let id = String(decoding: member, as: UTF8.self)
                    if seen.insert(id).inserted { ids.append((group, id)) }
                }
            }
        }
        return ids
    }

    /// Every partition of `groups` (those with items), read in pipelines per node.
    func readPartitions(groups: [String], _ state: inout State) throws -> [(RedisLayout.Partition, Snapshot)] {
        let ids = try partitionIDs(groups: groups, &state)
        let keys = ids.map { layout.partitionKey(id: $0.id) }
        let replies = try state.router.runEach(keys.map { ($0, readCommand($0)) }, operation: "read partitions")
        var result: [(RedisLayout.Partition, Snapshot)] = []
        for ((group, id), (key, reply)) in zip(ids, zip(keys, replies)) {
            if case .error(let message) = reply, Self.isWrongType(message) {
                // Its account is unknown (the key holds no attributes); its id names its group-index member.
                result.append((RedisLayout.Partition(group: group, account: "", id: id, key: key), unreadable(group: group, account: nil, key: key)))
                continue
            }
            let snapshot = try snapshot(reply, group: nil, account: nil, key: key)
            let account = snapshot.entries.first?.value.item.account ?? snapshot.damaged.first?.value.identity.account
            guard let account else { continue }  // gone or empty
            let partition = layout.partition(group: group, account: account)
            if partition.key != key, snapshot.entries.isEmpty {
                // Nothing readable and not its own attributes: damaged fields named under this key.
                result.append((RedisLayout.Partition(group: group, account: account, id: "", key: key), snapshot))
                continue
            }
            guard partition.key == key else { continue }  // a copy that does not belong to this group
            tracking?.know(partition)
            result.append((partition, snapshot))
        }
        return result
    }

    /// Every item of `groups` in insertion order, read so that the store's revision is the same
    /// before and after (retried a few times while writers commit, then taken as it is).
    func readAll(groups: [String], _ state: inout State) throws -> [StoreItem] {
        var entries: [(item: StoreItem, order: UInt64)] = []
        var damaged = 0
        for attempt in 0..<8 {
            let before = try readRevision(&state)
            let partitions = try readPartitions(groups: groups, &state)
            entries = partitions.flatMap { $0.1.entries.values }
            damaged = partitions.reduce(0) { $0 + $1.1.damaged.count }
            if try readRevision(&state) == before || attempt == 7 { break }
        }
        if groups.count == accessGroups.all.count { state.damagedInLastFullRead = damaged }
        entries.sort {
            $0.order != $1.order ? $0.order < $1.order : $0.item.service.utf8.lexicographicallyPrecedes($1.item.service.utf8)
        }
        return entries.map(\.item)
    }
}
