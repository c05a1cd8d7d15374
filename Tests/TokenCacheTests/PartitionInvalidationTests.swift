import CacheStore
import TestSupport
@_spi(Statistics) import TokenCache
import TokenCacheSchema
import Testing

/// Which remembered lookups (met needs) partition mode forgets when the store moves: only those a
/// change may affect, so that another writer's save to one user leaves every other user's lookups
/// warm, while every answer stays what a fresh engine gives.
@Suite struct PartitionInvalidationTests {
    static let group = CatchUpTests.group

    /// A store with `users` users saved by `writer`, and a partition-mode engine over it that has
    /// looked every one of them up once.
    static func warmed(users: Int) throws -> (store: PartitionedMemoryStore, writer: TokenCache, cache: TokenCache) {
        let store = try PartitionedMemoryStore(groups: [group])
        let writer = try TokenCache(store: store)
        for user in 0..<users { try PartitionModeTests.save(writer, user: user, step: user) }
        let cache = try PartitionModeTests.engine(store, limit: 10_000)
        for user in 0..<users { #expect(try CatchUpTests.accessToken(cache, user: user) == "at-\(user)") }
        return (store, writer, cache)
    }

    @Test func anotherWritersSaveToOneUserKeepsTheOthersLookupsWarm() throws {
        let (store, writer, cache) = try Self.warmed(users: 6)
        try PartitionModeTests.save(writer, user: 2, step: 100)
        // The first call after the save revalidates (re-reading user 2's partition) and answers.
        #expect(try CatchUpTests.accessToken(cache, user: 4) == "at-4")
        let before = cache.partitionStatistics
        let reads = store.partitionReads
        // Users other than 2 are answered by their met needs, reading nothing.
        for user in [0, 1, 3, 4, 5] { #expect(try CatchUpTests.accessToken(cache, user: user) == "at-\(user)") }
        let after = cache.partitionStatistics
        #expect(after.warmAnswers - before.warmAnswers == 5)
        #expect(after.slowPaths == before.slowPaths)
        #expect(store.partitionReads == reads)
        // User 2's need was forgotten: its lookup takes the slow path and finds the new token.
        #expect(try CatchUpTests.accessToken(cache, user: 2) == "at-100")
        #expect(cache.partitionStatistics.slowPaths == after.slowPaths + 1)
        #expect(cache.partitionStatistics.warmAnswers == after.warmAnswers)
    }

    @Test func aSaveThroughTheEngineForgetsOnlyThatUsersNeed() throws {
        let (_, _, cache) = try Self.warmed(users: 4)
        try PartitionModeTests.save(cache, user: 1, step: 200)
        let before = cache.partitionStatistics
        for user in [0, 2, 3] { #expect(try CatchUpTests.accessToken(cache, user: user) == "at-\(user)") }
        #expect(cache.partitionStatistics.warmAnswers - before.warmAnswers == 3)
        #expect(try CatchUpTests.accessToken(cache, user: 1) == "at-200")
        #expect(cache.partitionStatistics.slowPaths == before.slowPaths + 1)
    }

    @Test func aRemovalByAnotherWriterIsSeenAndOnlyItsUserReloads() throws {
        let (_, writer, cache) = try Self.warmed(users: 4)
        try writer.wipeAccount(homeAccountId: "uid3.tid1")
        #expect(try CatchUpTests.accessToken(cache, user: 3) == nil)
        let before = cache.partitionStatistics
        #expect(try CatchUpTests.accessToken(cache, user: 0) == "at-0")
        #expect(cache.partitionStatistics.warmAnswers == before.warmAnswers + 1)
    }

    @Test func aFirstSignInOfAUserNotFoundBeforeIsFound() throws {
        let (_, writer, cache) = try Self.warmed(users: 3)
        // A negative answer is a met need too: its partitions were empty.
        #expect(try CatchUpTests.accessToken(cache, user: 7) == nil)
        #expect(try CatchUpTests.accessToken(cache, user: 7) == nil)
        try PartitionModeTests.save(writer, user: 7, step: 70)
        #expect(try CatchUpTests.accessToken(cache, user: 7) == "at-70")
    }

    @Test func aNewAccountForAUsernameMakesTheUsernameLookupReadAgain() throws {
        let (_, writer, cache) = try Self.warmed(users: 3)
        #expect(try cache.account(username: "newcomer@contoso.com") == nil)
        #expect(try cache.account(username: "user1@contoso.com")?.homeAccountId == "uid1.tid1")
        // Another writer's first sign-in of an account with that username, in a partition the
        // engine never loaded.
        let response = TokenResponses.aad(
            uid: "uid50", tid: "tid0", username: "Newcomer@Contoso.com", scope: "User.Read", accessToken: "at-50", refreshToken: "rt-50", foci: "1")
        try writer.save(response, for: CatchUpTests.request)
        #expect(try cache.account(username: "newcomer@contoso.com")?.homeAccountId == "uid50.tid0")
        // A second account taking user1's username: answered as a fresh engine answers.
        let twin = TokenResponses.aad(
            uid: "uid51", tid: "tid1", username: "User1@Contoso.com", scope: "User.Read", accessToken: "at-51", refreshToken: "rt-51", foci: "1")
        try writer.save(twin, for: CatchUpTests.request)
        let fresh = try TokenCache(store: writer.store)
        #expect(try cache.account(username: "user1@contoso.com")?.homeAccountId == fresh.account(username: "user1@contoso.com")?.homeAccountId)
        #expect(try cache.refreshToken(RefreshTokenQuery(subject: .username("user1@contoso.com"), clientId: "client-a"))?.credential.secret
            == fresh.refreshToken(RefreshTokenQuery(subject: .username("user1@contoso.com"), clientId: "client-a"))?.credential.secret)
    }

    @Test func evictionForgetsOnlyTheNeedsOfEvictedPartitions() throws {
        let store = try PartitionedMemoryStore(groups: [Self.group])
        let writer = try TokenCache(store: store)
        for user in 0..<30 { try PartitionModeTests.save(writer, user: user, step: user) }
        let cache = try PartitionModeTests.engine(store, limit: 40)
        for user in 0..<30 { #expect(try CatchUpTests.accessToken(cache, user: user) == "at-\(user)") }
        let statistics = cache.partitionStatistics
        #expect(statistics.evictions > 0)
        // The most recent user survived every eviction: still answered warm.
        #expect(try CatchUpTests.accessToken(cache, user: 29) == "at-29")
        #expect(cache.partitionStatistics.warmAnswers == statistics.warmAnswers + 1)
        // The first was evicted, its need with it: read again.
        let reads = store.partitionReads
        #expect(try CatchUpTests.accessToken(cache, user: 0) == "at-0")
        #expect(store.partitionReads > reads)
    }
}
