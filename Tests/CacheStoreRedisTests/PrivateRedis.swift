import Foundation
@testable import CacheStoreRedis

/// A redis-server (or three-master cluster) of a test's own, in a temporary directory, which the
/// test may stop, pause, restart or kill without disturbing the servers other suites share.
final class PrivateRedis: @unchecked Sendable {
    let directory: URL
    let ports: [Int]
    private var processes: [Int: Process] = [:]
    private let persistent: Bool

    /// Whether redis-server can be started here (CI=true requires it: its tests fail without it).
    static var available: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            || FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server")
    }

    /// Starts `count` servers (a cluster when `cluster`, with `replicas` replicas per master),
    /// persisting to an append-only file when `persistent` so that a restart keeps the data.
    init(count: Int = 1, cluster: Bool = false, replicas: Int = 0, persistent: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.persistent = persistent
        var ports: [Int] = []
        while ports.count < count {
            // Below the ephemeral range (32768 and up), cluster bus port (+10000) included: an outgoing
            // connection may hold any port up there.
            let port = Int.random(in: 10000...22000)
            if !ports.contains(port), Self.free(port), Self.free(port + 10000) { ports.append(port) }
        }
        self.ports = ports
        for (index, port) in ports.enumerated() { try start(index, cluster: cluster) ; _ = port }
        for port in ports { try Self.waitUntil("redis-server on \(port) answers") { Self.ping(port) } }
        if cluster {
            let create = Process()
            create.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
            create.arguments = ["--cluster", "create"] + ports.map { "127.0.0.1:\($0)" } + ["--cluster-replicas", String(replicas), "--cluster-yes"]
            create.standardOutput = FileHandle.nullDevice
            create.standardError = FileHandle.nullDevice
            try create.run()
            create.waitUntilExit()
            for port in ports {
                try Self.waitUntil("the cluster is ok") {
                    guard let connection = try? RedisConnection(.tcp(host: "127.0.0.1", port: port), connectTimeoutMilliseconds: 500, commandTimeoutMilliseconds: 500),
                        let info = try? connection.command(["CLUSTER", "INFO"]).text
                    else { return false }
                    return info.contains("cluster_state:ok")
                }
            }
            // Each master's replicas are connected and in sync (a WAIT can be answered).
            for port in ports where replicas > 0 {
                try Self.waitUntil("the replicas are in sync") {
                    guard let info = Self.info(port, "replication") else { return false }
                    if info.contains("role:slave") { return info.contains("master_link_status:up") }
                    return info.contains("connected_slaves:\(replicas)")
                }
            }
        }
    }

    /// `cluster_state` in `CLUSTER INFO` of the node on `port` (`ok`, `fail`), nil when it does not answer.
    static func clusterState(_ port: Int) -> String? {
        guard let connection = try? RedisConnection(.tcp(host: "127.0.0.1", port: port), connectTimeoutMilliseconds: 500, commandTimeoutMilliseconds: 500),
            let info = try? connection.command(["CLUSTER", "INFO"]).text,
            let line = info.split(separator: "\r\n").first(where: { $0.hasPrefix("cluster_state:") })
        else { return nil }
        return String(line.dropFirst("cluster_state:".count))
    }

    /// `INFO section` of the server on `port`, nil when it does not answer.
    static func info(_ port: Int, _ section: String) -> String? {
        guard let connection = try? RedisConnection(.tcp(host: "127.0.0.1", port: port), connectTimeoutMilliseconds: 500, commandTimeoutMilliseconds: 500)
        else { return nil }
        return try? connection.command(["INFO", section]).text
    }

    deinit {
        for process in processes.values where process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            Self.waitForExit(process)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    var spec: String { "redis://127.0.0.1:\(ports[0])" }

    func start(_ index: Int, cluster: Bool = false) throws {
        let folder = directory.appendingPathComponent("node-\(index)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        var arguments = ["--port", String(ports[index]), "--bind", "127.0.0.1", "--dir", folder.path, "--save", ""]
        arguments += persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]
        if cluster {
            arguments += ["--cluster-enabled", "yes", "--cluster-config-file", folder.appendingPathComponent("nodes.conf").path,
                          "--cluster-node-timeout", "1000"]
        }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes[index] = process
    }

    /// Restarts a stopped server on the same port (a cluster node with its nodes.conf: it rejoins)
    /// and waits until it answers.
    func restart(_ index: Int = 0, cluster: Bool = false) throws {
        try start(index, cluster: cluster)
        try Self.waitUntil("redis-server restarted") { Self.ping(self.ports[index]) }
    }

    /// Kills the server at once (SIGKILL) and reaps it.
    func kill(_ index: Int = 0) {
        guard let process = processes[index] else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        Self.waitForExit(process)
    }

    /// Waits (at most 10 s) until Foundation has reaped the process; `waitUntilExit` can block for
    /// good when called off the thread that started it.
    static func waitForExit(_ process: Process) {
        try? waitUntil("redis-server \(process.processIdentifier) exited", seconds: 10) { !process.isRunning }
    }

    /// Freezes (SIGSTOP) or thaws (SIGCONT) the server: a server that accepts but never answers.
    func pause(_ index: Int = 0, _ paused: Bool) {
        guard let process = processes[index] else { return }
        Foundation.kill(process.processIdentifier, paused ? SIGSTOP : SIGCONT)
    }

    static func ping(_ port: Int) -> Bool {
        guard let connection = try? RedisConnection(.tcp(host: "127.0.0.1", port: port), connectTimeoutMilliseconds: 200, commandTimeoutMilliseconds: 500)
        else { return false }
        return (try? connection.command(["PING"])) == .status("PONG")
    }

    static func free(_ port: Int) -> Bool {
        (try? RedisConnection(.tcp(host: "127.0.0.1", port: port), connectTimeoutMilliseconds: 200, commandTimeoutMilliseconds: 200)) == nil
    }

    struct Timeout: Error, CustomStringConvertible {
        let what: String
        var description: String { "timed out waiting until \(what)" }
    }

    /// Polls `condition` every 20 ms for at most `seconds`.
    static func waitUntil(_ what: String, seconds: Double = 20, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw Timeout(what: what)
    }
}
