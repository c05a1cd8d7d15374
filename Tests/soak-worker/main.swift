// The soak test's worker and checker (scripts/soak.sh starts them; see there).
//
//   soak-worker work STORE LOG WORKER SECONDS   random saves, lookups, removals and imports against
//                                               the store for SECONDS, logging to LOG; STORE is a
//                                               SQLite path or a redis:// / redis+unix:// store spec
//   soak-worker check STORE LOGDIR WORKERS      checks the store against every worker's log; prints
//                                               the counts; exits 1 when something is wrong
//
// Key space: worker W owns the home accounts `sW-K.<tenant>` (K < accountsPerWorker) and is the only
// one to write them, so what its log says about them is the whole truth; every worker reads every
// account, and all share one client id, so the app's account metadata item (every account's
// sign-in state) is written by all of them at once.
//
// The log: each operation is logged as `begin OP K VERSION` before it starts and `ok OP K VERSION`
// after it returned (OP: save, import, remove); each line is one write(2) on an O_APPEND file, so a
// SIGKILL loses no acknowledged line. A version is unique (pid and counter) and is part of the
// access token's secret, so the checker can tell which save the store holds. Secrets are never printed.
import CacheStore
import CacheStoreRedis
import CacheStoreSQLite
import Foundation
import TokenCache
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

let group = "com.microsoft.adalcache"
let clientId = "0b1ad1c5-5000-4d6e-9a2f-5fa0a1c0ffee"
let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
let accountsPerWorker = 24

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("soak-worker: \(message)\n".utf8))
    exit(2)
}

func uid(_ worker: Int, _ account: Int) -> String { "s\(worker)-\(account)" }
func home(_ worker: Int, _ account: Int) -> String { "\(uid(worker, account)).\(tenant)" }
func secret(_ worker: Int, _ account: Int, _ version: String) -> String { "soak-at-\(uid(worker, account))-\(version)" }
func versionOf(secret: String, _ worker: Int, _ account: Int) -> String? {
    let prefix = "soak-at-\(uid(worker, account))-"
    return secret.hasPrefix(prefix) ? String(secret.dropFirst(prefix.count)) : nil
}

func b64url(_ object: [String: String]) -> String {
    Base64URL.encode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
}

func response(_ worker: Int, _ account: Int, _ version: String) -> TokenResponse {
    let id = uid(worker, account)
    let idToken = b64url(["alg": "none", "typ": "JWT"]) + "." + b64url([
        "tid": tenant, "oid": id, "sub": "sub-\(id)", "preferred_username": "\(id)@soak.example",
        "iss": "https://login.microsoftonline.com/\(tenant)/v2.0",
    ]) + "."
    return TokenResponse(
        accessToken: secret(worker, account, version), refreshToken: "soak-rt-\(id)-\(version)",
        idToken: idToken, clientInfo: b64url(["uid": id, "utid": tenant]), scope: "User.Read",
        expiresIn: 86_400 * 30, extendedExpiresIn: 86_400 * 30, refreshIn: nil, tokenType: nil, familyId: nil)
}

func query(_ worker: Int, _ account: Int) -> AccessTokenQuery {
    AccessTokenQuery(homeAccountId: home(worker, account), environment: "login.microsoftonline.com",
                     realm: tenant, clientId: clientId, scopes: ["User.Read"])
}

/// An MSAL JSON file with the account's access token, refresh token and account record, as another
/// library would write it.
func msalJSON(_ worker: Int, _ account: Int, _ version: String) -> Data {
    let now = Int(Date().timeIntervalSince1970)
    let id = uid(worker, account)
    let homeId = home(worker, account)
    let document: [String: Any] = [
        "AccessToken": ["k": [
            "credential_type": "AccessToken", "secret": secret(worker, account, version), "home_account_id": homeId,
            "environment": "login.windows.net", "client_id": clientId, "realm": tenant, "target": "User.Read",
            "cached_at": "\(now)", "expires_on": "\(now + 86_400 * 30)", "extended_expires_on": "\(now + 86_400 * 30)",
        ]],
        "RefreshToken": ["k": [
            "credential_type": "RefreshToken", "secret": "soak-rt-\(id)-\(version)", "home_account_id": homeId,
            "environment": "login.windows.net", "client_id": clientId,
        ]],
        "Account": ["k": [
            "home_account_id": homeId, "environment": "login.windows.net", "realm": tenant,
            "local_account_id": id, "username": "\(id)@soak.example", "authority_type": "MSSTS",
        ]],
    ]
    return try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
}

// MARK: - work

/// The store STORE names: a Redis store for a `redis://` or `redis+unix://` spec (its data key from
/// the spec's key source, `TOKENCACHE_REDIS_KEY` by default), else the SQLite store at that path.
func openStore(_ store: String) throws -> any ItemStore {
    if store.hasPrefix("redis://") || store.hasPrefix("redis+unix://") {
        return try RedisStore(configuration: try RedisConfiguration(parsing: store), accessGroups: try AccessGroups([group]))
    }
    return try SQLiteStore(path: store, accessGroups: try AccessGroups([group]))
}

func work(store path: String, log logPath: String, worker: Int, seconds: Double) -> Never {
    let log = open(logPath, O_WRONLY | O_APPEND | O_CREAT, 0o600)
    guard log >= 0 else { fail("cannot open \(logPath)") }
    func note(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        guard bytes.withUnsafeBytes({ write(log, $0.baseAddress, $0.count) }) == bytes.count else { fail("log write failed") }
    }
    let pid = getpid()
    var counter = 0
    var lookups = 0, saves = 0, removals = 0, imports = 0, errors = 0, notFound = 0
    func stats() {
        note("stat \(pid) lookups=\(lookups) saves=\(saves) removals=\(removals) imports=\(imports) notfound=\(notFound) errors=\(errors)")
    }
    func error(_ what: String) {
        errors += 1
        note("error \(pid) \(what)")
    }
    note("start \(pid)")

    let cache: TokenCache
    let interchange: CacheInterchange
    do {
        let store = try openStore(path)
        cache = try TokenCache(store: store)
        interchange = try CacheInterchange(store: store)
    } catch let failure {
        error("open: \(failure)")
        stats()
        exit(1)
    }
    let request = TokenRequest(
        authority: try! Authority("https://login.microsoftonline.com/\(tenant)"), clientId: clientId, scopes: ["User.Read"])

    // What this incarnation knows its own accounts hold: a version, or nil (removed); absent = unknown.
    var expected: [Int: String?] = [:]
    var generator = SystemRandomNumberGenerator()
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        let account = Int.random(in: 0..<accountsPerWorker, using: &generator)
        let roll = Int.random(in: 0..<100, using: &generator)
        counter += 1
        let version = "p\(pid)c\(counter)"
        do {
            switch roll {
            case 0..<30:
                note("begin save \(account) \(version)")
                try cache.save(response(worker, account, version), for: request)
                note("ok save \(account) \(version)")
                expected[account] = .some(version)
                saves += 1
            case 30..<40:
                note("begin import \(account) \(version)")
                _ = try interchange.importData(msalJSON(worker, account, version), source: "soak", format: .msalJSON)
                note("ok import \(account) \(version)")
                expected[account] = .some(version)
                imports += 1
            case 40..<52:
                note("begin remove \(account) \(version)")
                try cache.removeAccount(homeAccountId: home(worker, account), clientId: clientId)
                note("ok remove \(account) \(version)")
                expected[account] = .some(nil)
                removals += 1
            case 52..<85:
                // Own account: must be exactly what this incarnation last did to it.
                lookups += 1
                let found = try cache.accessToken(query(worker, account))?.credential.secret
                if found == nil { notFound += 1 }
                if let want = expected[account] {
                    let got = found.flatMap { versionOf(secret: $0, worker, account) }
                    if found != nil && got == nil { error("own account \(account): a secret of another account") }
                    else if got != want { error("own account \(account): found \(got ?? "nothing"), expected \(want ?? "nothing")") }
                }
            default:
                // Anyone's account, and the lists: must not fail, whatever they find.
                lookups += 1
                let other = Int.random(in: 0..<6, using: &generator)
                if try cache.accessToken(query(other, account)) == nil { notFound += 1 }
                _ = try cache.refreshToken(RefreshTokenQuery(subject: .homeAccountId(home(other, account)), clientId: clientId))
                _ = try cache.accounts(clientId: clientId)
            }
        } catch let failure {
            error("\(roll < 52 ? "write" : "read") of account \(account): \(failure)")
        }
        if counter % 200 == 0 { stats() }
    }
    stats()
    note("done \(pid)")
    exit(errors == 0 ? 0 : 1)
}

// MARK: - check

struct Operation {
    enum Kind: String { case save, `import`, remove }
    var kind: Kind
    var version: String
    var acknowledged: Bool
}

func check(store path: String, logs directory: String, workers: Int) -> Never {
    var problems: [String] = []
    var totals: [String: Int] = [:]
    var incarnations = 0, completed = 0, acknowledged = 0, pendingAtKill = 0
    let store: any ItemStore
    let cache: TokenCache
    do {
        store = try openStore(path)
        cache = try TokenCache(store: store)
        if let sqlite = store as? SQLiteStore {
            let integrity = try sqlite.integrityCheck()
            if !integrity.isEmpty { problems.append("integrity check: \(integrity.joined(separator: "; "))") }
        }
        if let damaged = (store as? any DamageReportingStore)?.damagedItemCount(), damaged > 0 { problems.append("damaged items: \(damaged)") }
    } catch let failure {
        fail("cannot open the store: \(failure)")
    }
    let listed: Set<String>
    do {
        listed = Set(try cache.accounts(clientId: clientId).map(\.homeAccountId))
    } catch let failure {
        fail("cannot list accounts: \(failure)")
    }

    for worker in 0..<workers {
        let logPath = "\(directory)/worker-\(worker).log"
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else {
            problems.append("worker \(worker): no log")
            continue
        }
        var operations: [Int: [Operation]] = [:]
        var lastStats: [String: [String: Int]] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            switch fields.first {
            case "start": incarnations += 1
            case "done": completed += 1
            case "error": problems.append("worker \(worker): \(fields.dropFirst(2).joined(separator: " "))")
            case "stat":
                var values: [String: Int] = [:]
                for field in fields.dropFirst(2) {
                    let pair = field.split(separator: "=")
                    if pair.count == 2, let value = Int(pair[1]) { values[String(pair[0])] = value }
                }
                lastStats[fields[1]] = values
            case "begin", "ok":
                guard fields.count == 4, let kind = Operation.Kind(rawValue: fields[1]), let account = Int(fields[2]) else {
                    problems.append("worker \(worker): unreadable log line")
                    continue
                }
                if fields[0] == "begin" {
                    operations[account, default: []].append(Operation(kind: kind, version: fields[3], acknowledged: false))
                } else if let last = operations[account]?.indices.last, operations[account]![last].version == fields[3] {
                    operations[account]![last].acknowledged = true
                    acknowledged += 1
                } else {
                    problems.append("worker \(worker): 'ok' without its 'begin'")
                }
            default:
                problems.append("worker \(worker): unreadable log line")
            }
        }
        for values in lastStats.values { for (name, value) in values { totals[name, default: 0] += value } }

        for account in 0..<accountsPerWorker {
            let history = operations[account] ?? []
            // The store must show the last acknowledged operation, or one begun after it whose
            // process was killed before it could acknowledge (it may or may not have committed).
            let lastAcknowledged = history.lastIndex(where: \.acknowledged)
            let pending = history[(lastAcknowledged.map { $0 + 1 } ?? 0)...]
            pendingAtKill += pending.count
            var allowed: [Operation?] = pending.map { $0 }
            if let lastAcknowledged { allowed.append(history[lastAcknowledged]) } else { allowed.append(nil) }

            let found: String?
            let refresh: Bool
            do {
                found = try cache.accessToken(query(worker, account))?.credential.secret
                refresh = try cache.refreshToken(RefreshTokenQuery(subject: .homeAccountId(home(worker, account)), clientId: clientId)) != nil
            } catch let failure {
                problems.append("\(uid(worker, account)): lookup failed: \(failure)")
                continue
            }
            let foundVersion = found.flatMap { versionOf(secret: $0, worker, account) }
            if found != nil && foundVersion == nil {
                problems.append("\(uid(worker, account)): holds another account's access token")
                continue
            }
            let matches = allowed.contains { operation in
                switch operation {
                case nil: return found == nil
                case let operation?:
                    switch operation.kind {
                    case .remove: return found == nil && !refresh
                    case .save, .import: return foundVersion == operation.version && refresh
                    }
                }
            }
            if !matches {
                let last = lastAcknowledged.map { "\(history[$0].kind.rawValue) \(history[$0].version)" } ?? "nothing"
                problems.append("\(uid(worker, account)): store has \(foundVersion ?? "no token")\(refresh ? "" : " and no refresh token"), "
                    + "last acknowledged \(last), \(pending.count) unacknowledged after it")
            }
            // Sign-in state: an account last saved through the engine (and nothing pending) is listed
            // for the app; one last removed is not (imports leave the state as it was).
            if pending.isEmpty, let lastAcknowledged {
                let isListed = listed.contains(home(worker, account))
                switch history[lastAcknowledged].kind {
                case .save where !isListed: problems.append("\(uid(worker, account)): saved but not listed for the app")
                case .remove where isListed: problems.append("\(uid(worker, account)): removed but listed for the app")
                default: break
                }
            }
        }
    }

    print("soak: \(workers) workers, \(incarnations) processes started, \(completed) ran to the end, \(incarnations - completed) killed")
    print("soak: acknowledged \(acknowledged) writes; \(pendingAtKill) unacknowledged at a kill")
    print("soak: counted by surviving stat lines: " + totals.keys.sorted().map { "\($0)=\(totals[$0]!)" }.joined(separator: " "))
    if store is SQLiteStore { print("soak: store integrity ok: \(!problems.contains { $0.hasPrefix("integrity") })") }
    if problems.isEmpty {
        print("soak: OK — every acknowledged write present, nothing removed reappeared, no errors")
        exit(0)
    }
    for problem in problems.prefix(50) { print("soak: PROBLEM \(problem)") }
    print("soak: \(problems.count) problems")
    exit(1)
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "work" where arguments.count == 6:
    work(store: arguments[2], log: arguments[3], worker: Int(arguments[4])!, seconds: Double(arguments[5])!)
case "check" where arguments.count == 5:
    check(store: arguments[2], logs: arguments[3], workers: Int(arguments[4])!)
default:
    fail("usage: soak-worker work STORE LOG WORKER SECONDS | check STORE LOGDIR WORKERS")
}
