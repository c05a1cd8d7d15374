import CHiredis
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#endif

/// One blocking hiredis connection. Not thread-safe: its owner serialises calls (the store under its
/// lock, a tracking listener on its own thread).
///
/// Every read and write is bounded by the command timeout and connecting by the connect timeout, so
/// no call hangs. After an I/O error the connection is dead (``isBroken``) and must be replaced.
final class RedisConnection: @unchecked Sendable {
    let endpoint: RedisConfiguration.Endpoint
    let commandTimeoutMilliseconds: Int
    /// The deadline of the store call this connection serves, when it serves a store's router.
    private let callDeadline: RedisCallDeadline?
    private let context: UnsafeMutablePointer<redisContext>
    private(set) var isBroken = false

    /// Connects, then logs in (`AUTH`) and selects the database when asked to. With `callDeadline`,
    /// connecting and every round trip end by the deadline of the call in progress, if any.
    init(
        _ endpoint: RedisConfiguration.Endpoint, connectTimeoutMilliseconds: Int, commandTimeoutMilliseconds: Int,
        username: String? = nil, password: String? = nil, database: Int = 0, callDeadline: RedisCallDeadline? = nil
    ) throws(RedisError) {
        self.endpoint = endpoint
        self.commandTimeoutMilliseconds = commandTimeoutMilliseconds
        self.callDeadline = callDeadline
        var connectTimeoutMilliseconds = connectTimeoutMilliseconds
        if let callDeadline, callDeadline.current != nil {
            connectTimeoutMilliseconds = min(connectTimeoutMilliseconds, callDeadline.remaining)
            guard connectTimeoutMilliseconds > 0 else {
                throw .timedOut(endpoint: endpoint.description, operation: "connect", milliseconds: commandTimeoutMilliseconds)
            }
        }
        guard tokencache_hiredis_load() == 1 else {
            throw .unreachable(endpoint: endpoint.description, reason: "hiredis cannot be loaded: \(String(cString: tokencache_hiredis_failure()))")
        }
        var code: Int32 = 0
        let connected: UnsafeMutablePointer<redisContext>?
        switch endpoint {
        case .tcp(let host, let port):
            connected = tc_redis_connect_tcp(host, Int32(port), connectTimeoutMilliseconds, &code)
        case .unix(let path):
            connected = tc_redis_connect_unix(path, connectTimeoutMilliseconds, &code)
        }
        guard let connected else {
            throw .unreachable(endpoint: endpoint.description, reason: "hiredis could not allocate a connection")
        }
        if tc_redis_error_code(connected) != 0 {
            let text = String(cString: tc_redis_error_text(connected))
            tc_redis_free(connected)
            throw Self.connectError(endpoint, code: code, text: text, timeout: connectTimeoutMilliseconds)
        }
        self.context = connected
        tc_redis_cap_replies(connected)
        guard tc_redis_set_timeout(connected, commandTimeoutMilliseconds) == REDIS_OK else {
            tc_redis_free(connected)
            throw .unreachable(endpoint: endpoint.description, reason: "cannot set the command timeout")
        }
        if let password {
            let arguments = username.map { ["AUTH", $0, password] } ?? ["AUTH", password]
            let reply = try command(arguments.map { Data($0.utf8) }, operation: "AUTH")
            if case .error(let message) = reply { throw .authenticationFailed(endpoint: endpoint.description, reason: message) }
        }
        if database != 0 {
            let reply = try command(["SELECT", String(database)], operation: "SELECT")
            if case .error(let message) = reply {
                throw .authenticationFailed(endpoint: endpoint.description, reason: "database \(database): \(message)")
            }
        }
    }

    deinit { tc_redis_free(context) }

    private static func connectError(
        _ endpoint: RedisConfiguration.Endpoint, code: Int32, text: String, timeout: Int
    ) -> RedisError {
        switch code {
        case ECONNREFUSED, ENOENT: return .refused(endpoint: endpoint.description, reason: text)
        case ETIMEDOUT, EAGAIN, EINPROGRESS: return .timedOut(endpoint: endpoint.description, operation: "connect", milliseconds: timeout)
        default:
            if text.contains("refused") || text.contains("No such file") { return .refused(endpoint: endpoint.description, reason: text) }
            if text.contains("timed out") { return .timedOut(endpoint: endpoint.description, operation: "connect", milliseconds: timeout) }
            return .unreachable(endpoint: endpoint.description, reason: text)
        }
    }

    /// Sends one command and reads its reply. An error reply is returned (``RedisValue/error(_:)``),
    /// not thrown: callers handle redirections and expected errors.
    func command(_ arguments: [String], operation: String? = nil) throws(RedisError) -> RedisValue {
        try command(arguments.map { Data($0.utf8) }, operation: operation ?? arguments.first ?? "")
    }

    func command(_ arguments: [Data], operation: String) throws(RedisError) -> RedisValue {
        try pipeline([arguments], operation: operation)[0]
    }

    /// The deadline (``tc_redis_now_ms()``) of a round trip starting now: the store call's, else
    /// the command timeout from now.
    var deadlineFromNow: Int64 { callDeadline?.current ?? tc_redis_now_ms() + Int64(commandTimeoutMilliseconds) }

    /// Sends the commands in one write and reads their replies in order (one round trip), all by
    /// `deadline` (default: the command timeout from now).
    func pipeline(_ commands: [[Data]], operation: String, deadline: Int64? = nil) throws(RedisError) -> [RedisValue] {
        guard !isBroken else { throw .connectionLost(endpoint: endpoint.description, operation: operation, reason: "connection closed") }
        for arguments in commands {
            let status = Self.withArgv(arguments) { argc, argv, lengths in
                tc_redis_append(context, argc, argv, lengths)
            }
            guard status == REDIS_OK else { throw failure(operation, code: 0) }
        }
        var replies: [RedisValue] = []
        replies.reserveCapacity(commands.count)
        // One deadline for the whole round trip: a server that spaces its bytes out, each within
        // the timeout, still cannot hold the caller past it.
        let deadline = deadline ?? deadlineFromNow
        for _ in commands {
            replies.append(try reply(by: deadline, operation: operation))
        }
        return replies
    }

    /// Reads the next pushed message (pub/sub), waiting at most `milliseconds`; `nil` when none came.
    func nextMessage(waitingAtMost milliseconds: Int32) throws(RedisError) -> RedisValue? {
        guard !isBroken else { throw .connectionLost(endpoint: endpoint.description, operation: "read message", reason: "connection closed") }
        if let reply = tc_redis_buffered_reply(context) {
            defer { tc_redis_free_reply(reply) }
            return RedisValue(reply)
        }
        let ready = tc_redis_wait_readable(context, milliseconds)
        if ready == 0 { return nil }
        if ready < 0 { throw failure("read message", code: errno) }
        return try reply(by: tc_redis_now_ms() + Int64(commandTimeoutMilliseconds), operation: "read message")
    }

    /// The next reply, read by `deadline` (``tc_redis_now_ms()``); refused when larger than any
    /// reply of the layout (`tc_redis_max_reply_elements`, `tc_redis_max_reply_bytes`).
    private func reply(by deadline: Int64, operation: String) throws(RedisError) -> RedisValue {
        var why: Int32 = 0
        var code: Int32 = 0
        guard let reply = tc_redis_reply_by(context, deadline, &why, &code) else {
            if why == Int32(TC_REDIS_TIMED_OUT.rawValue) {
                isBroken = true
                throw .timedOut(endpoint: endpoint.description, operation: operation, milliseconds: commandTimeoutMilliseconds)
            }
            if why == Int32(TC_REDIS_TOO_LARGE.rawValue) {
                isBroken = true
                throw .unexpectedReply(
                    endpoint: endpoint.description, operation: operation,
                    got: "a reply larger than any of this store's layout (over \(tc_redis_max_reply_elements) elements or \(tc_redis_max_reply_bytes >> 20) MiB)")
            }
            throw failure(operation, code: code)
        }
        defer { tc_redis_free_reply(reply) }
        return RedisValue(reply)
    }

    /// The error for a failed read or write; marks the connection broken.
    private func failure(_ operation: String, code: Int32) -> RedisError {
        isBroken = true
        let text = String(cString: tc_redis_error_text(context))
        if code == EAGAIN || code == EWOULDBLOCK || text.contains("temporarily unavailable") || text.contains("timed out") {
            return .timedOut(endpoint: endpoint.description, operation: operation, milliseconds: commandTimeoutMilliseconds)
        }
        return .connectionLost(endpoint: endpoint.description, operation: operation, reason: text.isEmpty ? "closed" : text)
    }

    /// Calls `body` with C views of `arguments` (argc, argv, lengths), valid only during the call.
    private static func withArgv<R>(
        _ arguments: [Data], _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> R
    ) -> R {
        let lengths = arguments.map(\.count)
        // One contiguous buffer holds every argument; argv points into it. An array, appended from
        // each argument's bytes (a copy each): `Data.append(Data)` took several times as long.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(lengths.reduce(0, +) + 1)
        for argument in arguments { argument.withUnsafeBytes { buffer.append(contentsOf: $0) } }
        buffer.append(0)
        return buffer.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            var pointers: [UnsafePointer<CChar>?] = []
            pointers.reserveCapacity(arguments.count)
            var offset = 0
            for length in lengths {
                pointers.append(base + offset)
                offset += length
            }
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { lengthPointer in
                    body(Int32(arguments.count), argv.baseAddress!, lengthPointer.baseAddress!)
                }
            }
        }
    }
}
