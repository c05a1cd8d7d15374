#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON

/// The lookup-key index's values: JSON arrays of strings (a partition's `.keys`, an index field's
/// account attributes), readable with `redis-cli`, and editable by the index script.
enum RedisLookupKeys {
    /// The strings as a compact JSON array (TokenCacheJSON's serializer: `"` and `\\` escaped,
    /// control characters as their short escapes or `\u00XX`, everything else as its UTF-8 bytes).
    static func encode(_ values: [String]) -> Data {
        JSONValue.array(values.map(JSONValue.string)).serialized()
    }

    /// The strings, or nil when `data` is not a JSON array of strings: what the store writes, what
    /// the index script's `cjson` writes (it escapes `/`), and any other valid JSON array of strings.
    static func decode(_ data: Data) -> [String]? {
        guard case .array(let elements)? = try? JSONValue.parse(data, allowTrailingCommas: false) else { return nil }
        var values: [String] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let value) = element else { return nil }
            values.append(value)
        }
        return values
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
