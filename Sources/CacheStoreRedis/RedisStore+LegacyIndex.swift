import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The index of stores written before it was sharded (one set `g:GID`, 64 buckets `l:GID:NN`; see
/// ``RedisLayout``): found by the doctor, and moved into the shards by a prune on a standalone server.
extension RedisStore {
    /// The groups that still hold keys of the legacy index.
    public func legacyIndexGroups() throws -> [String] {
        try state.withLock { state throws(RedisError) in
            let groups = accessGroups.all
            let keys = groups.map { [layout.legacyGroupIndexKey($0)] + layout.legacyLookupBucketKeys(group: $0) }
            let replies = try state.router.runEach(keys.flatMap { $0.map { ($0, [Data("EXISTS".utf8), $0]) } }, operation: "EXISTS legacy index")
            var position = 0
            return zip(groups, keys).compactMap { group, keys in
                defer { position += keys.count }
                return replies[position..<(position + keys.count)].contains { $0 != .integer(0) } ? group : nil
            }
        }
    }

    /// Moves what is left of `group`'s legacy index into the shards (standalone only: each move
    /// spans two keys). Each member moves with `SMOVE` and each lookup key with ``moveScript``, both
    /// atomic, so a concurrent writer's removal either comes first (nothing is moved) or edits the
    /// entry where it lands. A store opened before the move still reads the old buckets, which no
    /// longer hold what moved, and the new, which do.
    func moveLegacyIndex(_ group: String, _ state: inout State) throws {
        let legacySet = layout.legacyGroupIndexKey(group)
        guard case .array(let members) = try state.router.run([Data("SMEMBERS".utf8), legacySet], key: legacySet, operation: "SMEMBERS legacy group index") else {
            return  // another type: not the index's, left alone
        }
        var moves: [(key: Data, command: [Data])] = []
        for case .string(let member) in members {
            let shard = layout.groupIndexKey(group: group, partitionID: String(decoding: member, as: UTF8.self))
            moves.append((legacySet, [Data("SMOVE".utf8), legacySet, shard, member]))
        }
        for bucket in layout.legacyLookupBucketKeys(group: group) {
            guard case .array(let flat) = try state.router.run([Data("HKEYS".utf8), bucket], key: bucket, operation: "HKEYS legacy lookup-key index") else { continue }
            for case .string(let field) in flat {
                let target = layout.lookupBucketKey(group: group, lookupKey: String(decoding: field, as: UTF8.self))
                moves.append((bucket, [Data("EVAL".utf8), Data(Self.moveScript.utf8), Data("2".utf8), bucket, target, field]))
            }
        }
        guard !moves.isEmpty else { return }
        try checkReplies(try state.router.runEach(moves, operation: "move legacy index"), operation: "move legacy index")
    }

    /// Moves one lookup-key field (ARGV[1]) from a legacy bucket (KEYS[1]) into its bucket (KEYS[2]),
    /// merging the account lists. A value that is not a JSON array is left where it is.
    static let moveScript = """
        local raw = redis.call('HGET', KEYS[1], ARGV[1])
        if not raw then return 0 end
        local ok, moved = pcall(cjson.decode, raw)
        if not ok or type(moved) ~= 'table' then return 0 end
        local list = {}
        local current = redis.call('HGET', KEYS[2], ARGV[1])
        if current then
          local ok2, decoded = pcall(cjson.decode, current)
          if ok2 and type(decoded) == 'table' then list = decoded end
        end
        for _, v in ipairs(moved) do
          local found = false
          for _, w in ipairs(list) do if w == v then found = true break end end
          if not found then table.insert(list, v) end
        end
        if #list > 0 then redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(list)) end
        redis.call('HDEL', KEYS[1], ARGV[1])
        return 1
        """
}
