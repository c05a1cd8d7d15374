#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Lua script the store runs on reads when partitions have a sliding lifetime (commits are
/// `MULTI`/`EXEC` transactions, see `RedisStore.commit`).
enum RedisScripts {
    /// Reads a partition and slides its lifetime (KEYS: the hash; ARGV: lifetime in ms). The expiry
    /// is pushed back only when more than 1% of the lifetime (at least a second) has passed since it
    /// was last set, so reads rarely write (each write notifies other processes' tracking).
    static let touchRead = """
        local life = tonumber(ARGV[1])
        local left = redis.call('PTTL', KEYS[1])
        local slack = math.max(1000, math.floor(life / 100))
        if left > 0 and left < life - slack then redis.call('PEXPIRE', KEYS[1], life) end
        return redis.call('HGETALL', KEYS[1])
        """
}
