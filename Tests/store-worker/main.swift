// A worker the SQLite and Redis tests start as separate processes, so that concurrency and crashes are real.
//
//   store-worker write PATH GROUP WORKER COUNT     COUNT saves, one transaction each; prints "done N"
//   store-worker read PATH GROUP STOPFILE          queries until STOPFILE exists; counts never shrink
//   store-worker batches PATH GROUP SIZE           batch after batch of SIZE items; prints "committed K"
//   store-worker save PATH GROUP ACCOUNT SERVICE   saves one item, prints "saved"
//   store-worker churn PATH GROUP WORKER STOPFILE  until STOPFILE exists: saves batch I (three items
//                                                  in partition wWORKER-I), then looks up batch I-1;
//                                                  prints "save RESULT I START_MS DURATION_MS" and
//                                                  "lookup RESULT I START_MS DURATION_MS", RESULT being
//                                                  ok, partial (a lookup found 1 or 2 of the 3 items)
//                                                  or the error's category (spaces as -); then "stopped I"
//   store-worker wait-cost SPEC GROUP COUNT        COUNT single-item saves through two stores on SPEC,
//                                                  one with wait=0 and one with wait=1, alternately;
//                                                  prints "median W0_US W1_US" (µs per save)
//   store-worker follow PATH GROUP STOPFILE        keeps a copy of the store by catching up by partition
//                                                  until STOPFILE exists, then checks it against a full
//                                                  read; prints "consistent ITEMS rounds N"
//   store-worker import PATH GROUP FILE            saves every item of a keychain-items JSON file in
//                                                  one batch; prints "imported N"
//   store-worker hold PATH GROUP GOFILE [KEYFILE]  opens the store (sealing with KEYFILE), saves one
//                                                  item, prints "ready", waits until GOFILE exists,
//                                                  saves another: prints "saved" or "refused CATEGORY"
//   store-worker keyring-save NAMESPACE GROUP ACCOUNT [SERVICE]  saves one item (service SERVICE,
//                                                  default "s") in a Secret Service store; prints "saved"
//   store-worker keyring-key - GROUP               the Secret Service data key of GROUP, created if
//                                                  missing; prints "key ID"
//
// PATH may also be a redis:// or redis+unix:// spec (its key from TOKENCACHE_REDIS_KEY unless it says).
import CacheStore
import CacheStoreEncryption
import CacheStoreRedis
import CacheStoreSQLite
import CacheStoreSecretService
import Foundation
import TokenCacheInterchange

/// Writes a line to stdout at once (no buffering), so a parent that kills us has seen every line.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("store-worker: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: store-worker MODE PATH GROUP …") }
let mode = arguments[1]
let path = arguments[2]
let group = arguments[3]

do {
    switch mode {
    case "keyring-save":
        let store = try SecretServiceStore(accessGroups: try AccessGroups([group]), options: .init(namespace: path))
        let service = arguments.count > 5 ? arguments[5] : "s"
        try store.save(StoreItem(accessGroup: group, account: arguments[4], service: service, type: 2001, data: Data("x".utf8)))
        say("saved")
        exit(0)
    case "keyring-key":
        say("key \(try SecretServiceKeySource().createKey(for: group).idHex)")
        exit(0)
    case "hold":
        var options = SQLiteStore.Options()
        if arguments.count > 5 { options.encryption = .init(keySources: [KeyFile(path: arguments[5])]) }
        let store = try SQLiteStore(path: path, accessGroups: try AccessGroups([group]), options: options)
        try store.save(StoreItem(accessGroup: group, account: "holder", service: "before", type: 2001, data: Data("x".utf8)))
        say("ready")
        while !FileManager.default.fileExists(atPath: arguments[4]) { usleep(5_000) }
        do {
            try store.save(StoreItem(accessGroup: group, account: "holder", service: "after", type: 2001, data: Data("y".utf8)))
            say("saved")
        } catch {
            say("refused \(ErrorCategory(of: error)): \(error)")
        }
        exit(0)
    case "wait-cost":
        // Alternating, so that the machine's load drifts the same way for both; medians.
        let count = Int(arguments[4])!
        let stores = try [0, 1].map { wait in
            var configuration = try RedisConfiguration(parsing: path)
            configuration.prefix += "-wait\(wait)"
            configuration.replicasToWait = wait
            return try RedisStore(configuration: configuration, accessGroups: try AccessGroups([group]))
        }
        var micros: [[Double]] = [[], []]
        for index in 0..<count {
            for (wait, store) in stores.enumerated() {
                let started = ContinuousClock.now
                try store.save(StoreItem(accessGroup: group, account: "a\(index % 50)", service: "s\(index)", type: 2001, data: Data("x".utf8)))
                let elapsed = (ContinuousClock.now - started).components
                micros[wait].append(Double(elapsed.seconds) * 1e6 + Double(elapsed.attoseconds) / 1e12)
            }
        }
        let medians = micros.map { $0.sorted()[$0.count / 2] }
        say("median \(Int(medians[0])) \(Int(medians[1]))")
        exit(0)
    default:
        break
    }
    let store: any ItemStore = RedisConfiguration.isRedisSpec(path)
        ? try RedisStore(configuration: try RedisConfiguration(parsing: path), accessGroups: try AccessGroups([group]))
        : try SQLiteStore(path: path, accessGroups: try AccessGroups([group]))
    switch mode {
    case "write":
        let worker = arguments[4]
        let count = Int(arguments[5])!
        for index in 0..<count {
            try store.save(StoreItem(
                accessGroup: group, account: "writer-\(worker)", service: "item-\(index)",
                generic: Data("w".utf8), type: 2001, data: Data("payload \(worker) \(index)".utf8)))
        }
        say("done \(count)")
    case "read":
        let stopFile = arguments[4]
        var last = 0
        var reads = 0
        while !FileManager.default.fileExists(atPath: stopFile) {
            let count = try store.items(matching: ItemQuery(type: 2001)).count
            if count < last { fail("count went down from \(last) to \(count)") }
            last = count
            reads += 1
        }
        say("reads \(reads) last \(last)")
    case "batches":
        let size = Int(arguments[4])!
        let payload = Data(repeating: 0x61, count: 2048)
        var batch = 0
        while true {
            let items = (0..<size).map { index in
                StoreItem(
                    accessGroup: group, account: "batch", service: "b\(batch)-\(index)",
                    generic: Data("batch-\(batch)".utf8), type: 2002, data: payload)
            }
            try store.save(items)
            say("committed \(batch)")
            batch += 1
        }
    case "save":
        try store.save(StoreItem(
            accessGroup: group, account: arguments[4], service: arguments[5], type: 2001, data: Data("x".utf8)))
        say("saved")
    case "churn":
        let worker = arguments[4]
        let stopFile = arguments[5]
        func now() -> Int { Int(Date().timeIntervalSince1970 * 1000) }
        func batch(_ index: Int) -> [StoreItem] {
            ["at", "rt", "id"].map { service in
                StoreItem(accessGroup: group, account: "w\(worker)-\(index)", service: service, generic: Data("g".utf8),
                          type: 2001, data: Data("w\(worker)-\(index) \(service)".utf8))
            }
        }
        var index = 0
        while !FileManager.default.fileExists(atPath: stopFile) {
            var started = now()
            do {
                try store.save(batch(index))
                say("save ok \(index) \(started) \(now() - started)")
            } catch {
                say("save \(String(describing: ErrorCategory(of: error)).replacingOccurrences(of: " ", with: "-")) \(index) \(started) \(now() - started)")
            }
            if index > 0 {
                started = now()
                do {
                    let found = try store.items(matching: ItemQuery(accessGroup: group, account: "w\(worker)-\(index - 1)")).count
                    say("lookup \(found == 0 || found == 3 ? "ok" : "partial") \(index - 1) \(started) \(now() - started)")
                } catch {
                    say("lookup \(String(describing: ErrorCategory(of: error)).replacingOccurrences(of: " ", with: "-")) \(index - 1) \(started) \(now() - started)")
                }
            }
            index += 1
        }
        say("stopped \(index)")
    case "follow":
        let stopFile = arguments[4]
        guard let tracking = store as? any PartitionTrackingStore, var revision = try tracking.partitionChanges(since: nil)?.revision else { fail("the store tells no partition changes") }
        var copy = Dictionary(grouping: try store.allItems(), by: \.partition)
        var rounds = 0
        func catchUp() throws {
            guard let changes = try tracking.partitionChanges(since: revision) else { fail("the store lost its history at \(revision)") }
            for partition in changes.partitions {
                copy[partition] = try store.readPartition(accessGroup: partition.accessGroup, account: partition.account).items
            }
            revision = changes.revision
            rounds += 1
        }
        while !FileManager.default.fileExists(atPath: stopFile) { try catchUp() }
        try catchUp()
        let held = copy.filter { !$0.value.isEmpty }
        guard held == Dictionary(grouping: try store.allItems(), by: \.partition) else { fail("the caught-up copy differs from a full read") }
        say("consistent \(held.values.map(\.count).reduce(0, +)) rounds \(rounds)")
    case "import":
        let file = arguments[4]
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let items = try KeychainItemsFormat.decode(data, source: file)
        try store.save(items)
        say("imported \(items.count)")
    default:
        fail("unknown mode \(mode)")
    }
} catch {
    fail(String(describing: error))
}
