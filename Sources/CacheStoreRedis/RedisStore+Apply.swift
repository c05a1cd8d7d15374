@_spi(Bytes) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RedisStore {
    public func apply(_ batch: [StoreOperation]) throws -> BatchResult {
        try accessGroups.check(batch)
        for case .save(let item) in batch { try StoreLimits.check(item, maximumDataSize: maximumDataSize) }
        return try state.withLock { state throws in
            let result = try apply(batch, &state)
            try state.router.checkReplication()
            return result
        }
    }

    /// The partitions the batch touches, in the order it first touches them, each with its
    /// operations; partitions found through the group index come with the snapshot read to find them.
    func plan(
        _ batch: [StoreOperation], _ state: inout State
    ) throws -> (order: [RedisLayout.Partition], operations: [Data: [StoreOperation]], complete: [String]) {
        var order: [RedisLayout.Partition] = []
        var operations: [Data: [StoreOperation]] = [:]
        var indexed: [String: [(RedisLayout.Partition, Snapshot)]] = [:]
        var complete: [String] = []
        func add(_ partition: RedisLayout.Partition, _ operation: StoreOperation) {
            if operations[partition.key] == nil { order.append(partition) }
            operations[partition.key, default: []].append(operation)
        }
        // A token response's operations name two or three partitions between them: each key's
        // digest is made once.
        var made: [RedisLayout.Partition] = []
        func partitionOf(group: String, account: String) -> RedisLayout.Partition {
            // Compared as bytes, as the key's digest sees them (String's == would equate canonically equivalent text).
            if let known = made.first(where: { sameBytes($0.account, account) && sameBytes($0.group, group) }) {
                return known
            }
            let new = layout.partition(group: group, account: account)
            if made.count < 8 { made.append(new) }
            return new
        }
        for operation in batch {
            switch operation {
            case .save(let item):
                add(partitionOf(group: item.accessGroup, account: item.account), operation)
            case .delete(let query):
                if let group = query.accessGroup, let account = query.account {
                    add(partitionOf(group: group, account: account), operation)
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
            case .setLookupKeys(let partition, _):
                add(partitionOf(group: partition.accessGroup, account: partition.account), operation)
            case .declareLookupKeysComplete(let group):
                if !complete.contains(group) { complete.append(group) }
            }
        }
        return (order, operations, complete)
    }

    private static func mayMatch(_ query: ItemQuery, _ partition: RedisLayout.Partition) -> Bool {
        if let group = query.accessGroup, !sameBytes(group, partition.group) { return false }
        if let account = query.account, !sameBytes(account, partition.account) { return false }
        return true
    }

    func apply(_ batch: [StoreOperation], _ state: inout State) throws -> BatchResult {
        let generation = tracking?.shared.withLock { $0.generation } ?? 0
        guard !batch.isEmpty else { return BatchResult() }
        let (order, operations, complete) = try plan(batch, &state)
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
                        if change.itemsChanged { tracking?.recordCommit(partition) } else { tracking?.know(partition) }
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
            try declareComplete(complete, &state)
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
    func commitStamps(_ revisions: [UInt64], generation: UInt64, _ state: inout State) throws -> CommitStamps {
        guard let first = revisions.first, let last = revisions.last else {
            let now = try stamp(&state)
            return CommitStamps(base: now, result: now)
        }
        let generationNow = tracking?.shared.withLock { $0.generation } ?? 0
        let consecutive = zip(revisions, revisions.dropFirst()).allSatisfy { $1 == $0 &+ 1 }
        let result = ChangeStamp(last, generationNow)
        tracking?.shared.withLock { shared in
            // Our INCR's result exceeds every revision this store held before, so stamps made of
            // it are new either way; it is the server's current one only when nothing came between.
            shared.revisionConfirmed = consecutive && generationNow == generation && (shared.cachedRevision == nil || shared.cachedRevision == first &- 1)
            shared.cachedRevision = last
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
        var before: Snapshot
        var after: Snapshot

        /// Whether items change (not only lookup keys): only then the partition's revision moves and
        /// the commit counts as a partition change.
        var itemsChanged: Bool { !sets.isEmpty || !deletes.isEmpty }

        /// The revision the partition gets: above both the previous one and the clock in µs, so a
        /// partition deleted and made again never repeats one; unchanged for a keys-only change.
        func revision(expected: UInt64) -> UInt64 {
            itemsChanged ? max(expected &+ 1, UInt64(Date().timeIntervalSince1970 * 1e6)) : expected
        }
    }

    /// Applies the operations to a copy of the snapshot; nil when nothing changes.
    func simulate(
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
            case .setLookupKeys(_, let keys):
                after.lookupKeys = Array(Set(keys)).sorted()
            case .declareLookupKeysComplete:
                break
            }
        }
        guard !touched.isEmpty || after.lookupKeys != snapshot.lookupKeys else { return nil }
        var change = Change(before: snapshot, after: after)
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

    /// The commands that write a partition's change (inside a transaction): the hash's fields and
    /// revision, its lifetime, and on a standalone server the lookup-key index edits.
    func changeCommands(_ change: Change, partition: RedisLayout.Partition, revision: UInt64, standalone: Bool) -> [[Data]] {
        var commands: [[Data]] = []
        // A key of another type (damaged, see Snapshot.wrongType) is replaced by the partition written.
        if change.before.wrongType { commands.append([Data("DEL".utf8), partition.key]) }
        let groupIndex = layout.groupIndexKey(group: partition.group, partitionID: partition.id)
        if change.after.entries.isEmpty && change.after.lookupKeys.isEmpty {
            commands.append([Data("DEL".utf8), partition.key])
            // Standalone: the group index drops the partition with it, from the legacy set too (a
            // writer making it again lists it again in its own transaction, below).
            if standalone { commands += unlistCommands(partition) }
        } else {
            if standalone, change.before.entries.isEmpty, !change.sets.isEmpty {
                // Listed in the same transaction as its first items, so that a prune (which removes
                // a member only while its partition does not exist, under WATCH) never unlists it.
                commands.append([Data("SADD".utf8), groupIndex, Data(partition.id.utf8)])
            }
            var deletes = change.deletes
            if change.after.lookupKeys.isEmpty, !change.before.lookupKeys.isEmpty { deletes.append(RedisLayout.lookupKeysField) }
            if !deletes.isEmpty { commands.append([Data("HDEL".utf8), partition.key] + deletes) }
            var set = [Data("HSET".utf8), partition.key]
            for (field, value) in change.sets { set += [field, value] }
            set += [RedisLayout.revisionField, Data(String(revision).utf8), RedisLayout.groupField, Data(partition.group.utf8),
                    RedisLayout.accountField, Data(partition.account.utf8)]
            if !change.after.lookupKeys.isEmpty, change.after.lookupKeys != change.before.lookupKeys {
                set += [RedisLayout.lookupKeysField, RedisLookupKeys.encode(change.after.lookupKeys)]
            }
            commands.append(set)
            if let lifetime = configuration.lifetimeSeconds {
                commands.append([Data("PEXPIRE".utf8), partition.key, Data(String(lifetime * 1000).utf8)])
            }
        }
        if standalone {
            let edits = lookupEdits(change, partition: partition)
            commands += (edits.add + edits.remove).map(\.command)
        }
        return commands
    }

    /// The commands that remove a partition from its group's index: its shard and the legacy set.
    func unlistCommands(_ partition: RedisLayout.Partition) -> [[Data]] {
        [[Data("SREM".utf8), layout.groupIndexKey(group: partition.group, partitionID: partition.id), Data(partition.id.utf8)],
         [Data("SREM".utf8), layout.legacyGroupIndexKey(partition.group), Data(partition.id.utf8)]]
    }

    /// Lists a partition in its group's index before its first items are written, so a full read
    /// never misses a committed partition.
    func listInGroup(_ change: Change, partition: RedisLayout.Partition, _ state: inout State) throws {
        guard change.before.entries.isEmpty, !change.sets.isEmpty else { return }
        let index = layout.groupIndexKey(group: partition.group, partitionID: partition.id)
        _ = try state.router.run([Data("SADD".utf8), index, Data(partition.id.utf8)], key: index, operation: "SADD group index")
    }

    /// Commits the partition's change in `MULTI`/`EXEC`; nil when the partition changed since it was
    /// read under `WATCH` (nothing written). A transaction rather than a script so that the tracking
    /// option NOLOOP recognises the store's own writes and does not echo them back to it.
    private func commit(
        _ change: Change, partition: RedisLayout.Partition, expected: UInt64, _ state: inout State
    ) throws -> (partition: UInt64, store: UInt64)? {
        try listInGroup(change, partition: partition, &state)
        let standalone = state.router.isCluster == false
        let revision = change.revision(expected: expected)
        let edits = standalone ? (add: [], remove: []) : lookupEdits(change, partition: partition)
        if !edits.add.isEmpty {
            // Cluster: indexed before the commit, so the index never misses a committed key.
            try checkReplies(try state.router.runEach(edits.add, operation: "index lookup keys"), operation: "index lookup keys")
        }
        var commands: [[Data]] = [[Data("MULTI".utf8)]]
        commands += changeCommands(change, partition: partition, revision: revision, standalone: standalone)
        if standalone { commands.append([Data("INCR".utf8), layout.revisionKey]) }
        commands.append([Data("EXEC".utf8)])
        let replies = try state.router.run(commands, key: partition.key, operation: "commit partition")
        guard let store = try execResult(replies, storeRevision: standalone) else { return nil }
        if standalone { return (revision, store) }
        if !edits.remove.isEmpty {
            // Cluster: dropped after the commit; if this fails the index keeps a stale candidate,
            // which readers tolerate.
            _ = try? state.router.runEach(edits.remove, operation: "unindex lookup keys")
        }
        let counter = try state.router.run([Data("INCR".utf8), layout.revisionKey], key: layout.revisionKey, operation: "INCR revision")
        guard case .integer(let value) = counter else {
            throw RedisError.unexpectedReply(endpoint: configuration.endpoint.description, operation: "INCR revision", got: counter.typeName)
        }
        return (revision, UInt64(value))
    }

    /// Throws on the first error reply.
    func checkReplies(_ replies: [RedisValue], operation: String) throws {
        for case .error(let message) in replies {
            throw RedisError.server(endpoint: configuration.endpoint.description, operation: operation, message: message)
        }
    }

    /// The outcome of a `MULTI`…`EXEC` pipeline: nil when a watched key changed (nothing written);
    /// else the last command's integer when `storeRevision` (the `INCR` of the store revision), or 0.
    func execResult(_ replies: [RedisValue], storeRevision: Bool) throws -> UInt64? {
        let endpoint = configuration.endpoint.description
        for reply in replies.dropLast() {
            if case .error(let message) = reply { throw RedisError.server(endpoint: endpoint, operation: "commit partition", message: message) }
        }
        switch replies.last! {
        case .null:
            return nil
        case .array(let results):
            if let failure = results.first(where: { if case .error = $0 { true } else { false } }) {
                throw RedisError.server(endpoint: endpoint, operation: "commit partition", message: failure.typeName)
            }
            guard storeRevision else { return 0 }
            guard case .integer(let value)? = results.last else {
                throw RedisError.unexpectedReply(endpoint: endpoint, operation: "INCR revision", got: results.last?.typeName ?? "nothing")
            }
            return UInt64(value)
        case .error(let message):
            throw RedisError.server(endpoint: endpoint, operation: "commit partition", message: message)
        default:
            throw RedisError.unexpectedReply(endpoint: endpoint, operation: "EXEC", got: replies.last!.typeName)
        }
    }
}
