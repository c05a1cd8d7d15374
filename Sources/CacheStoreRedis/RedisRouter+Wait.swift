#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `wait=N`: every pipeline that writes is followed, on the same connection, by `WAIT`, and a
/// write fewer replicas confirmed is recorded for the call to report (``RedisError/notReplicated``).
extension RedisRouter {
    /// `WAIT N ms`: the replica count `wait=` asks for, waited for at most half of what the call
    /// has left, so that a shortfall leaves time to finish the call's writes and report it (`WAIT`
    /// with 0 would block for good, so at least 1 ms).
    func waitCommand() -> [Data] {
        let milliseconds = max(1, deadline.remaining / 2)
        return [Data("WAIT".utf8), Data(String(configuration.replicasToWait).utf8), Data(String(milliseconds).utf8)]
    }

    /// Whether the pipeline `commands` is followed by `WAIT`: it writes, and no write of this call
    /// has fallen short yet (the call will fail with ``RedisError/notReplicated`` anyway, and its
    /// other writes should not spend its time waiting).
    func waitsForReplicas(_ commands: some Sequence<[Data]>) -> Bool {
        configuration.replicasToWait > 0 && unconfirmedWrite == nil && commands.contains(where: Self.writes)
    }

    /// Whether `command` writes: with `wait=N`, what replicas must confirm. (The script that reads a
    /// partition and slides its lifetime does not count: a read is not waited for.)
    static func writes(_ command: [Data]) -> Bool {
        guard let name = command.first else { return false }
        if name == eval { return command.count < 2 || command[1] != touchReadScript }
        return writeCommands.contains(name)
    }

    static let writeCommands = Set(["MULTI", "SET", "SADD", "SREM", "INCR", "HSET", "HDEL", "DEL", "PEXPIRE"].map { Data($0.utf8) })
    static let eval = Data("EVAL".utf8)
    static let touchReadScript = Data(RedisScripts.touchRead.utf8)

    /// Records a write of this call that fewer replicas than `wait=` confirmed.
    func checkWait(_ reply: RedisValue, at endpoint: Endpoint) {
        let required = configuration.replicasToWait
        switch reply {
        case .integer(let acknowledged) where acknowledged >= required:
            return
        case .integer(let acknowledged):
            unconfirmedWrite = .notReplicated(endpoint: endpoint.description, acknowledged: Int(acknowledged), required: required)
        default:
            unconfirmedWrite = .notReplicated(endpoint: endpoint.description, acknowledged: 0, required: required)
        }
    }
}
