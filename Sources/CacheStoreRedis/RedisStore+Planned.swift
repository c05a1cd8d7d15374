import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RedisStore {
    /// On a standalone server, atomic: the store revision is `WATCH`ed before the plan reads it, every
    /// partition the plan's batch touches is read under `WATCH` too, and the whole batch is one
    /// `MULTI`/`EXEC` with the revision's `INCR` — so any commit in between (every tokencache commit
    /// increments the revision) makes `EXEC` write nothing, and the store plans again. Other writers
    /// are not blocked while `plan` runs; the plan is retried instead (up to 200 times, then applied
    /// as the contract's default does).
    ///
    /// In a cluster a transaction cannot span slots, so the contract's default holds: the stamp is
    /// checked just before the batch, not atomically with it, and the batch is applied partition by
    /// partition.
    @discardableResult
    public func applyPlanned(
        _ plan: (_ stamp: ChangeStamp, _ allItems: () throws -> [StoreItem]) throws -> [StoreOperation]
    ) throws -> BatchResult {
        let standalone = try state.withLock { state throws(RedisError) -> Bool in
            _ = try state.router.masters()
            return state.router.isCluster == false
        }
        for _ in 0..<200 {
            if standalone {
                let result = try state.withLock { state throws in
                    let result = try watchedAttempt(plan, &state)
                    try state.router.checkReplication()
                    return result
                }
                if let result { return result }
            } else {
                let stamp = try changeStamp()
                let batch = try plan(stamp) { try allItems() }
                if batch.isEmpty { return BatchResult() }
                // Not atomic with the commit: a cluster cannot watch keys in several slots at once.
                if try changeStamp() == stamp { return try apply(batch) }
            }
        }
        return try apply(try plan(try changeStamp()) { try allItems() })
    }

    /// One optimistic attempt on a standalone server: the result, or nil when another commit came
    /// between the plan's reads and the transaction (nothing was written).
    ///
    /// Two round trips while tracking knows the store's revision: the plan is made on that revision,
    /// and one pipeline `WATCH`es the revision, reads it back to check it is still the one planned on
    /// (every tokencache commit increments it, so equal means nothing was committed since) and reads
    /// every touched partition under `WATCH`; then `MULTI`…`EXEC`. Without a known revision, one more
    /// round trip comes first: `WATCH` and `GET` of the revision, then the plan.
    private func watchedAttempt(
        _ plan: (_ stamp: ChangeStamp, _ allItems: () throws -> [StoreItem]) throws -> [StoreOperation], _ state: inout State
    ) throws -> BatchResult? {
        let known = try knownRevision(&state)
        let generation = known?.generation ?? tracking?.shared.withLock { $0.generation } ?? 0
        do {
            let revision: UInt64
            if let known {
                revision = known.revision
            } else {
                // WATCH and GET in one round trip.
                let watched = try state.router.run(
                    [[Data("WATCH".utf8), layout.revisionKey], [Data("GET".utf8), layout.revisionKey]], key: layout.revisionKey,
                    operation: "WATCH revision")
                revision = try parseRevision(watched[1])
            }
            let stamp = ChangeStamp(revision, generation)
            let batch = try plan(stamp) { try readAll(groups: accessGroups.all, &state) }
            guard !batch.isEmpty else {
                if known == nil { _ = try state.router.run([Data("UNWATCH".utf8)], key: layout.revisionKey, operation: "UNWATCH") }
                return BatchResult()
            }
            try accessGroups.check(batch)
            for case .save(let item) in batch { try StoreLimits.check(item, maximumDataSize: maximumDataSize) }
            let (order, operations, complete) = try self.plan(batch, &state)
            var result = BatchResult()
            var commands: [[Data]] = []
            var written: [(RedisLayout.Partition, Change, UInt64)] = []
            // Every partition read under WATCH, in one pipeline (one round trip: a single node),
            // after the revision's WATCH and check when the plan was made on the known revision.
            var reads: [(key: Data, command: [Data])] = []
            if known != nil {
                reads.append((layout.revisionKey, [Data("WATCH".utf8), layout.revisionKey]))
                reads.append((layout.revisionKey, [Data("GET".utf8), layout.revisionKey]))
            }
            let first = reads.count
            // A partition tracking holds a copy of is not read whole: its `.rev` read back under
            // WATCH vouches for the copy (every change of its items moves it), and `.keys` comes along.
            let copies = known == nil ? [:] : trackedCopies(of: order, generation: known!.generation)
            for partition in order {
                tracking?.know(partition)
                reads.append((partition.key, [Data("WATCH".utf8), partition.key]))
                reads.append((partition.key, copies[partition.key] == nil
                    ? readCommand(partition.key) : [Data("HMGET".utf8), partition.key, RedisLayout.revisionField, RedisLayout.lookupKeysField]))
            }
            let read = try state.router.runEach(reads, operation: "read partitions")
            if let known, try parseRevision(read[1]) != known.revision {
                // Committed to since tracking last knew: plan again on the server's revision.
                _ = try state.router.run([Data("UNWATCH".utf8)], key: layout.revisionKey, operation: "UNWATCH")
                tracking?.shared.withLock { shared in
                    if shared.generation == known.generation, shared.cachedRevision == known.revision { shared.cachedRevision = nil }
                }
                return nil
            }
            for (index, partition) in order.enumerated() {
                let reply = read[first + 2 * index + 1]
                let current: Snapshot
                if let copy = copies[partition.key] {
                    guard let vouched = try snapshot(copy, revisionAndKeys: reply) else {
                        // The copy is out of date (an invalidation still on its way): plan again.
                        tracking?.shared.withLock { $0.partitions[partition.key] = nil }
                        _ = try state.router.run([Data("UNWATCH".utf8)], key: layout.revisionKey, operation: "UNWATCH")
                        return nil
                    }
                    current = vouched
                } else {
                    current = try snapshot(reply, group: partition.group, account: partition.account, key: partition.key)
                }
                guard let change = try simulate(operations[partition.key]!, on: current, counts: &result, &state) else { continue }
                let revision = change.revision(expected: current.revision)
                // changeCommands lists a new partition in its group's index in the same transaction.
                commands += changeCommands(change, partition: partition, revision: revision, standalone: true)
                written.append((partition, change, revision))
            }
            guard !written.isEmpty else {
                _ = try state.router.run([Data("UNWATCH".utf8)], key: layout.revisionKey, operation: "UNWATCH")
                try declareComplete(complete, &state)
                result.commit = try commitStamps([], generation: generation, &state)
                return result
            }
            commands = [[Data("MULTI".utf8)]] + commands + [[Data("INCR".utf8), layout.revisionKey], [Data("EXEC".utf8)]]
            let replies = try state.router.run(commands, key: layout.revisionKey, operation: "commit planned batch")
            guard let store = try execResult(replies, storeRevision: true) else { return nil }
            for (partition, change, revision) in written {
                if change.itemsChanged { tracking?.recordCommit(partition) }
                if tracking != nil {
                    let ordered = change.after.ordered
                    remember(.init(revision: revision, items: ordered.map(\.item), orders: ordered.map(\.order)),
                             key: partition.key, ifGeneration: nil)
                }
            }
            result.commit = try commitStamps([store], generation: generation, &state)
            try declareComplete(complete, &state)
            return result
        } catch {
            if let redisError = error as? RedisError, redisError.isConnectionFailure {
                state.router.dropAll()
            } else {
                _ = try? state.router.run([Data("UNWATCH".utf8)], key: layout.revisionKey, operation: "UNWATCH")
            }
            throw error
        }
    }

    /// The store revision and tracking generation tracking vouches for now, without a round trip;
    /// nil without tracking, while it is unhealthy, or before the revision was read.
    private func knownRevision(_ state: inout State) throws -> (revision: UInt64, generation: UInt64)? {
        guard let tracking, try healthy(&state) else { return nil }
        return tracking.shared.withLock { shared in shared.revisionConfirmed ? shared.cachedRevision.map { ($0, shared.generation) } : nil }
    }

    /// The copies tracking holds of `partitions`, while no invalidation arrived since `generation`
    /// (none with a sliding lifetime: reads must then reach the server to slide it).
    private func trackedCopies(of partitions: [RedisLayout.Partition], generation: UInt64) -> [Data: RedisTracking.CachedPartition] {
        guard let tracking, configuration.lifetimeSeconds == nil else { return [:] }
        return tracking.shared.withLock { shared in
            guard shared.generation == generation else { return [:] }
            var copies: [Data: RedisTracking.CachedPartition] = [:]
            for partition in partitions { copies[partition.key] = shared.partitions[partition.key] }
            return copies
        }
    }

    /// The partition as its tracked copy holds it, with the keys read back; nil when the revision
    /// read back (`HMGET .rev .keys`) is not the copy's.
    private func snapshot(_ copy: RedisTracking.CachedPartition, revisionAndKeys reply: RedisValue) throws -> Snapshot? {
        guard case .array(let values) = reply, values.count == 2 else {
            throw RedisError.unexpectedReply(endpoint: configuration.endpoint.description, operation: "HMGET revision", got: reply.typeName)
        }
        guard Self.revision(values[0]) == copy.revision else { return nil }
        var snapshot = Snapshot(revision: copy.revision)
        if case .string(let keys) = values[1] { snapshot.lookupKeys = RedisLookupKeys.decode(keys) ?? [] }
        for (item, order) in zip(copy.items, copy.orders) {
            snapshot.entries[RedisLayout.field(type: item.type, service: item.service)] = (item, order)
        }
        return snapshot
    }

    private func parseRevision(_ reply: RedisValue) throws -> UInt64 {
        guard let revision = Self.revision(reply) else {
            throw RedisError.unexpectedReply(endpoint: configuration.endpoint.description, operation: "GET revision", got: reply.typeName)
        }
        return revision
    }

    /// A revision as Redis holds it: absent is 0; anything but a decimal number is `nil`.
    private static func revision(_ reply: RedisValue) -> UInt64? {
        switch reply {
        case .null: 0
        case .string(let text): UInt64(String(decoding: text, as: UTF8.self))
        default: nil
        }
    }
}
