import CacheStore
import CacheStoreSQLite
import Foundation
import Synchronization
import TestSupport
import TokenCache
import TokenCacheSchema
import Testing

/// One engine shared by threads that read while another thread writes, and a second engine on the
/// same SQLite file writing too, so the first one's index is revalidated under the readers' feet.
/// Run under the thread sanitizer by `scripts/tsan.sh`; without it, it still checks that readers
/// never miss an item nobody removes and that every write lands.
@Suite struct ConcurrentAccessTests {
    static let group = "com.microsoft.adalcache"
    static let clientId = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"

    static func response(uid: String, secret: String) -> TokenResponse {
        TokenResponses.aad(uid: uid, tid: tenant, username: "\(uid)@contoso.com", scope: "User.Read",
                           accessToken: secret, refreshToken: "rt-\(secret)")
    }

    static func query(uid: String) -> AccessTokenQuery {
        AccessTokenQuery(homeAccountId: "\(uid).\(tenant)", environment: "login.microsoftonline.com",
                         realm: tenant, clientId: clientId, scopes: ["User.Read"])
    }

    @Test func readersAndWritersShareOneEngineAndOneFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("cache.sqlite")
        let groups = try AccessGroups([Self.group])
        let cache = try TokenCache(store: try SQLiteStore(path: path, accessGroups: groups))
        let other = try TokenCache(store: try SQLiteStore(path: path, accessGroups: groups))
        let request = TokenRequest(
            authority: try Authority("https://login.microsoftonline.com/\(Self.tenant)"),
            clientId: Self.clientId, scopes: ["User.Read"])

        // An account no one removes: every read must find it.
        try cache.save(Self.response(uid: "stable", secret: "stable-at"), for: request)

        let failures = Mutex<[String]>([])
        let writersDone = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        let rounds = 60
        let readers = 4

        DispatchQueue.concurrentPerform(iterations: readers + 2) { worker in
            func fail(_ message: String) { failures.withLock { $0.append("worker \(worker): \(message)") } }
            do {
                switch worker {
                case 0, 1:
                    // Writers: worker 0 through the shared engine, worker 1 through the other one.
                    let engine = worker == 0 ? cache : other
                    for round in 0..<rounds {
                        let uid = "w\(worker)-\(round)"
                        try engine.save(Self.response(uid: uid, secret: "at-\(uid)"), for: request)
                        guard try engine.accessToken(Self.query(uid: uid))?.credential.secret == "at-\(uid)" else {
                            fail("own save of \(uid) not found")
                            continue
                        }
                        if round % 3 == 0 {
                            try engine.removeAccount(homeAccountId: "\(uid).\(Self.tenant)", clientId: Self.clientId)
                            if try engine.accessToken(Self.query(uid: uid)) != nil { fail("removed \(uid) still found") }
                        }
                    }
                    writersDone.add(1, ordering: .sequentiallyConsistent)
                default:
                    // Readers of the shared engine, until both writers are done.
                    var count = 0
                    while writersDone.load(ordering: .sequentiallyConsistent) < 2 || count < 20 {
                        guard try cache.accessToken(Self.query(uid: "stable"))?.credential.secret == "stable-at" else {
                            fail("stable access token not found")
                            return
                        }
                        _ = try cache.accounts(clientId: Self.clientId)
                        _ = try cache.refreshToken(RefreshTokenQuery(
                            subject: .username("w0-\(count % rounds)@contoso.com"), clientId: Self.clientId))
                        count += 1
                    }
                    reads.add(count, ordering: .relaxed)
                }
            } catch {
                fail("\(error)")
            }
        }

        #expect(failures.withLock { $0 } == [])
        #expect(reads.load(ordering: .relaxed) >= readers * 20)
        // Every write landed, seen through both engines.
        for engine in [cache, other] {
            for worker in 0...1 {
                for round in 0..<rounds {
                    let uid = "w\(worker)-\(round)"
                    let found = try engine.accessToken(Self.query(uid: uid))?.credential.secret
                    #expect(found == (round % 3 == 0 ? nil : "at-\(uid)"), "\(uid)")
                }
            }
        }
        let accounts = try cache.accounts(clientId: Self.clientId).count
        #expect(accounts == 1 + 2 * (rounds - rounds / 3))
    }
}
