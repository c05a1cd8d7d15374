import CacheStore
import Foundation

extension RedisStore {
    public func apply(_ batch: [StoreOperation]) throws -> BatchResult {
        try accessGroups.check(batch)
        for case .save(let item) in batch { try StoreLimits.check(item, maximumDataSize: maximumDataSize) }
        return try state.withLock { state throws in try apply(batch, &state) }
    }

    /// The partitions the batch touches, in the order it first touches them, each with its
    /// operations; partitions found through the group index come with the snapshot read to find them.
    private func plan(
        _ batch: [StoreOperation], _ state: inout State
    ) throws -> (order: [RedisLayout.Partition], operations: [Data: [StoreOperation]]) {
        var order: [RedisLayout.Partition] = []
        var operations: [Data: [StoreOperation]] = [:]
        var indexed: [String: [(RedisLayout.Partition, Snapshot)]] = [:]
        func add(_ partition: RedisLayout.Partition, _ operation: StoreOperation) {
            if operations[partition.key] == nil { order.append(partition) }
            operations[partition.key, default: []].append(operation)
        }
        for operation in batch {
            switch operation {
            case .save(let item):
                add(layout.partition(group: item.accessGroup, account: item.account), operation)
            case .delete(let query):
                if let group = query.accessGroup, let account = query.account {
                    add(layout.partition(group: group, account: account), operation)
                    continue
                }
                // Partitions this batch already touches (an item saved earlier in it may match), then
                // those the group index lists that hold a match.
                var chosen = Set<Data>()
                for partition in order where Self.mayMatch(query, partition) && chosen.insert(partition.key).inserted {
                    add(partition, operation)
                }
                for group in query.accessGroup.map({ [$0] }) ?? accessGroups.all {
                    if indexed[group] == nil { indexed[group] = try readPartitions(groups: [group], &state) }
                    for (partition, snapshot) in indexed[group]! where Self.mayMatch(query, partition) {
                        guard snapshot.entries.values.contains(where: { query.matches($0.item) }) else { continue }
                        if chosen.insert(partition.key).inserted { add(partition, operation) }
                    }
                }
            case .setLookupKeys, .declareLookupKeysComplete:
                break  // this store keeps no lookup-key index yet: partitions(withLookupKey:) answers nil
            }
        }
        return (order, operations)
    }

    private static func mayMatch(_ query: ItemQuery, _ partition: RedisLayout.Partition) -> Bool {
        if let group = query.accessGroup, !group.utf8.elementsEqual(partition.group.utf8) { return false }
        if let account = query.account, !account.utf8.elementsEqual(partition.account.utf8) { return false }
        return true
    }

    func apply(_ batch: [StoreOperation], _ state: inout State) throws -> BatchResult {
        let generation = tracking?.shared.withLock { $0.generation } ?? 0
        guard !batch.isEmpty else { return BatchResult() }
        let (order, operations) = try plan(batch, &state)
        var result = BatchResult()
        var storeRevisions: [UInt64] = []
        var committed = 0
        do {
            for (index, partition) in order.enumerated() {
                if let inject = faultInjection.withLock({ $0 }) { try inject(index) }
                for attempt in 0... {
                    let current = try readPartition(partition, watching: true, &state)
                    var counts = BatchResult()
                    let change = try simulate(operations[partition.key]!, on: current, counts: &counts, &state)
                    guard let change else {
                        _ = try state.router.run([Data("UNWATCH".utf8)], key: partition.key, operation: "UNWATCH")
                        result.added += counts.added; result.replaced += counts.replaced; result.deleted += counts.deleted
                        break
                    }
                    if let revision = try commit(change, partition: partition, expected: current.revision, &state) {
                        result.added += counts.added; result.replaced += counts.replaced; result.deleted += counts.deleted
                        committed += 1
                        storeRevisions.append(revision.store)
                        if tracking != nil {
                            let ordered = change.after.ordered
                            remember(.init(revision: revision.partition, items: ordered.map(\.item), orders: ordered.map(\.order)),
                                     key: partition.key, ifGeneration: nil)
                        }
                        break
                    }
                    guard attempt < 100 else {
                        throw RedisError.server(endpoint: configuration.endpoint.description, operation: "commit partition",
                                                message: "the partition kept changing under 100 attempts")
                    }
                }
            }
        } catch {
            if let redisError = error as? RedisError, redisError.isConnectionFailure { state.router.dropAll() }
            if committed > 0 {
                tracking?.shared.withLock { $0.cachedRevision = nil }
                throw RedisError.partiallyApplied(committedPartitions: committed, of: order.count, cause: String(describing: error))
            }
            throw error
        }
        result.commit = try commitStamps(storeRevisions, generation: generation, &state)
        return result
    }

    /// The stamps around the batch: exact when its partition commits moved the store revision one
    /// by one and no other change was reported meanwhile; otherwise a base no engine holds, so
    /// engines re-read instead of trusting their copy.
    private func commitStamps(_ revisions: [UInt64], generation: UInt64, _ state: inout State) throws -> CommitStamps {
        guard let first = revisions.first, let last = revisions.last else {
            let now = try stamp(&state)
            return CommitStamps(base: now, result: now)
        }
        let generationNow = tracking?.shared.withLock { $0.generation } ?? 0
        let consecutive = zip(revisions, revisions.dropFirst()).allSatisfy { $1 == $0 &+ 1 }
        let result = ChangeStamp(last, generationNow)
        tracking?.shared.withLock { shared in
            if consecutive, generationNow == generation, shared.cachedRevision == nil || shared.cachedRevision == first &- 1 {
                shared.cachedRevision = last
            } else {
                shared.cachedRevision = nil
            }
        }
        guard consecutive, generationNow == generation else {
            return CommitStamps(base: ChangeStamp(.max, .max), result: result)
        }
        return CommitStamps(base: ChangeStamp(first &- 1, generation), result: result)
    }

    /// What a partition's commit writes, and the partition after it.
    struct Change {
        var sets: [(Data, Data)] = []
        var deletes: [Data] = []
        var after: Snapshot
    }

    /// Applies the operations to a copy of the snapshot; nil when nothing changes.
    private func simulate(
        _ operations: [StoreOperation], on snapshot: Snapshot, counts: inout BatchResult, _ state: inout State
    ) throws -> Change? {
        var after = snapshot
        var touched: [Data] = []
        let now = Date()
        for operation in operations {
            switch operation {
            case .save(var item):
                let field = RedisLayout.field(type: item.type, service: item.service)
                item.modified = now
                if let existing = after.entries[field] {
                    item.created = existing.item.created
                    after.entries[field] = (item, existing.order)
                    counts.replaced += 1
                } else {
                    item.created = now
                    after.entries[field] = (item, nextOrder(&state))
                    counts.added += 1
                }
                touched.append(field)
            case .delete(let query):
                for (field, entry) in after.entries where query.matches(entry.item) {
                    after.entries[field] = nil
                    counts.deleted += 1
                    touched.append(field)
                }
            case .setLookupKeys, .declareLookupKeysComplete:
                break
            }
        }
        guard !touched.isEmpty else { return nil }
        var change = Change(after: after)
        var seen = Set<Data>()
        for field in touched where seen.insert(field).inserted {
            if let entry = after.entries[field] {
                let item = entry.item
                let (payload, sealed) = try keys.seal(item.data, item.identity)
                change.sets.append((field, RedisRecord.encode(
                    order: entry.order, generic: item.generic, created: item.created ?? now, modified: item.modified ?? now,
                    sealed: sealed, payload: payload)))
            } else if snapshot.entries[field] != nil {
                change.deletes.append(field)
            }
        }
        return change
    }

    /// Commits the partition's change in `MULTI`/`EXEC`; nil when the partition changed since it was
    /// read under `WATCH` (nothing written). A transaction rather than a script so that the tracking
    /// option NOLOOP recognises the store's own writes and does not echo them back to it.
    private func commit(
        _ change: Change, partition: RedisLayout.Partition, expected: UInt64, _ state: inout State
    ) throws -> (partition: UInt64, store: UInt64)? {
        if expected == 0, !change.sets.isEmpty {
            // Listed before it is written, so a full read never misses a committed partition.
            let index = layout.groupIndexKey(partition.group)
            _ = try state.router.run([Data("SADD".utf8), index, Data(partition.id.utf8)], key: index, operation: "SADD group index")
        }
        let standalone = state.router.isCluster == false
        let clock = UInt64(Date().timeIntervalSince1970 * 1e6)
        let revision = max(expected &+ 1, clock)
        var commands: [[Data]] = [[Data("MULTI".utf8)]]
        if change.after.entries.isEmpty {
            commands.append([Data("DEL".utf8), partition.key])
        } else {
            if !change.deletes.isEmpty { commands.append([Data("HDEL".utf8), partition.key] + change.deletes) }
            var set = [Data("HSET".utf8), partition.key]
            for (field, value) in change.sets { set += [field, value] }
            set += [RedisLayout.revisionField, Data(String(revision).utf8), RedisLayout.groupField, Data(partition.group.utf8),
                    RedisLayout.accountField, Data(partition.account.utf8)]
            commands.append(set)
            if let lifetime = configuration.lifetimeSeconds {
                commands.append([Data("PEXPIRE".utf8), partition.key, Data(String(lifetime * 1000).utf8)])
            }
        }
        if standalone { commands.append([Data("INCR".utf8), layout.revisionKey]) }
        commands.append([Data("EXEC".utf8)])
        let replies = try state.router.run(commands, key: partition.key, operation: "commit partition")
        let endpoint = configuration.endpoint.description
        for reply in replies.dropLast() {
            if case .error(let message) = reply { throw RedisError.server(endpoint: endpoint, operation: "commit partition", message: message) }
        }
        var store: UInt64 = 0
        switch replies.last! {
        case .null:
            return nil  // a watched partition changed: nothing was written
        case .array(let results):
            if let failure = results.first(where: { if case .error = $0 { true } else { false } }) {
                throw RedisError.server(endpoint: endpoint, operation: "commit partition", message: failure.typeName)
            }
            if standalone {
                guard case .integer(let value)? = results.last else {
                    throw RedisError.unexpectedReply(endpoint: endpoint, operation: "INCR revision", got: results.last?.typeName ?? "nothing")
                }
                store = UInt64(value)
            }
        case .error(let message):
            throw RedisError.server(endpoint: endpoint, operation: "commit partition", message: message)
        default:
            throw RedisError.unexpectedReply(endpoint: endpoint, operation: "EXEC", got: replies.last!.typeName)
        }
        if !standalone {
            let counter = try state.router.run([Data("INCR".utf8), layout.revisionKey], key: layout.revisionKey, operation: "INCR revision")
            guard case .integer(let value) = counter else {
                throw RedisError.unexpectedReply(endpoint: endpoint, operation: "INCR revision", got: counter.typeName)
            }
            store = UInt64(value)
        }
        return (revision, store)
    }
}
