import Benchmark
import CacheStore
import CacheStoreSQLite
import Foundation
import TokenCache
import TokenCacheSchema

// Every benchmark reports the time of one operation: it loops `scaledIterations`, and the scaling
// factor divides the measured time by the number of iterations.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: .kilo(10)
    )

    let dataset: Dataset
    let sqlite: TokenCache
    let memory: TokenCache
    do {
        dataset = try Dataset.make()
        sqlite = try dataset.openWarm()
        memory = try dataset.openWarmInMemory()
    } catch {
        fatalError("cannot build the benchmark dataset: \(error)")
    }
    let users = dataset.users

    for (suffix, cache) in [("", sqlite), (" (memory store)", memory)] {
        Benchmark("account by identifier" + suffix) { benchmark in
            var index = 0
            for _ in benchmark.scaledIterations {
                index = (index &+ 7) % users.count
                blackHole(try cache.account(identifier: users[index].homeAccountId))
            }
        }

        Benchmark("account by username" + suffix) { benchmark in
            let names = users.map { $0.username.uppercased() }
            var index = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                index = (index &+ 7) % users.count
                blackHole(try cache.account(username: names[index]))
            }
        }

        Benchmark("all accounts" + suffix, configuration: .init(scalingFactor: .one)) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try cache.accounts(clientId: Dataset.appA))
            }
        }

        Benchmark("access token, exact scopes" + suffix) { benchmark in
            let queries = users.map {
                AccessTokenQuery(
                    homeAccountId: $0.homeAccountId, environment: "login.windows.net", realm: $0.homeTenant,
                    clientId: Dataset.appA, scopes: ["User.Read", "Mail.Read", "openid", "profile"])
            }
            var index = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                index = (index &+ 7) % queries.count
                blackHole(try cache.accessToken(queries[index]))
            }
        }

        Benchmark("access token, scope subset via alias" + suffix) { benchmark in
            let queries = users.map {
                AccessTokenQuery(
                    homeAccountId: $0.homeAccountId, environment: "login.microsoftonline.com", realm: "organizations",
                    clientId: Dataset.appA, scopes: ["mail.read"])
            }
            var index = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                index = (index &+ 7) % queries.count
                blackHole(try cache.accessToken(queries[index]))
            }
        }

        Benchmark("family refresh token" + suffix) { benchmark in
            var index = 0
            for _ in benchmark.scaledIterations {
                index = (index &+ 2) % users.count  // even users: app B is in the family
                blackHole(try cache.familyRefreshToken(homeAccountId: users[index].homeAccountId, clientId: Dataset.appB))
            }
        }
    }

    Benchmark("save token response", configuration: .init(scalingFactor: .one, maxDuration: .seconds(3))) { benchmark in
        let authority = try Authority("https://login.microsoftonline.com/organizations")
        var index = 0
        for _ in benchmark.scaledIterations {
            index = (index &+ 13) % users.count
            let user = users[index]
            let uid = String(user.homeAccountId.prefix { $0 != "." })
            let response = Dataset.response(
                uid: uid, homeTenant: user.homeTenant, tenant: user.homeTenant, username: user.username,
                scope: "User.Read Mail.Read openid profile", family: "1")
            benchmark.startMeasurement()
            blackHole(try sqlite.save(response, for: TokenRequest(authority: authority, clientId: Dataset.appA, scopes: ["User.Read"])))
            benchmark.stopMeasurement()
        }
    }

    Benchmark("open store and first lookup", configuration: .init(scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 50)) { benchmark in
        let user = users[421]
        let query = AccessTokenQuery(
            homeAccountId: user.homeAccountId, environment: "login.microsoftonline.com", realm: user.homeTenant,
            clientId: Dataset.appA, scopes: ["User.Read"])
        for _ in benchmark.scaledIterations {
            let store = try SQLiteStore(path: dataset.path, accessGroups: try AccessGroups([Dataset.group]))
            let cache = try TokenCache(store: store)
            blackHole(try cache.accessToken(query))
        }
    }
}
