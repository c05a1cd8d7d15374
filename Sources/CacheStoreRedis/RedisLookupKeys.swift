import Foundation

/// The lookup-key index's values: JSON arrays of strings (a partition's `.keys`, an index field's
/// account attributes), readable with `redis-cli`, and editable by the index script.
enum RedisLookupKeys {
    static func encode(_ values: [String]) -> Data {
        (try? JSONEncoder().encode(values)) ?? Data("[]".utf8)
    }

    /// The strings, or nil when `data` is not a JSON array of strings.
    static func decode(_ data: Data) -> [String]? {
        try? JSONDecoder().decode([String].self, from: data)
    }

    /// Adds (`+`) or removes (`-`) an account attribute in one index field, atomically on the
    /// server (KEYS: the index hash; ARGV: lookup key, account, `+` or `-`). An emptied field is
    /// removed. Returns 1 when the field changed.
    static let editScript = """
        local raw = redis.call('HGET', KEYS[1], ARGV[1])
        local list = {}
        if raw then
          local ok, decoded = pcall(cjson.decode, raw)
          if ok and type(decoded) == 'table' then list = decoded end
        end
        local found = nil
        for i, v in ipairs(list) do if v == ARGV[2] then found = i break end end
        if ARGV[3] == '+' then
          if found then return 0 end
          table.insert(list, ARGV[2])
        else
          if not found then return 0 end
          table.remove(list, found)
        end
        if #list == 0 then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(list)) end
        return 1
        """
}
