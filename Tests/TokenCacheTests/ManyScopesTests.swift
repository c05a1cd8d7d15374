import Foundation
import Testing
@testable import TokenCache
import TokenCacheSchema

/// A token response with tens of thousands of scopes: saving it, saving it again over itself and
/// looking it up cost time linear in the scopes, not quadratic (20,000 scopes took seconds).
@Suite struct ManyScopesTests {
    static func scopes(_ count: Int, prefix: String = "Scope") -> [String] {
        (0..<count).map { "https://resource.example/\(prefix).\($0)" }
    }

    @Test func savingAndLookingUpATokenOfManyScopes() throws {
        let fixture = try CacheFixture()
        let count = 5_000
        let scopes = Self.scopes(count)
        // Every scope twice, in other case the second time: repeats are dropped as they are found.
        let scope = (scopes + scopes.map { $0.uppercased() }).joined(separator: " ")
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            try fixture.save(TokenResponses.aad(scope: scope))
            // The second save replaces the first: the two targets are compared.
            try fixture.save(TokenResponses.aad(scope: scope))
            let found = try fixture.accessToken(scopes: Array(scopes.reversed()))
            #expect(found != nil)
            #expect(try fixture.accessToken(scopes: Array(scopes.prefix(count / 2)) + ["https://resource.example/Absent"]) == nil)
        }
        #expect(elapsed < .seconds(20), "took \(elapsed)")
    }

    /// 40,000 scopes (80,000 words with the repeats) against 40,000: a quadratic search is billions
    /// of steps, a minute or more in a debug build; the linear work takes a few seconds there (well
    /// under one in a release build).
    @Test func scopeSetsOfManyScopesCostLinearTime() {
        let count = 40_000
        let scopes = Self.scopes(count)
        let elapsed = ContinuousClock().measure {
            let many = ScopeSet((scopes + scopes.map { $0.uppercased() }).joined(separator: " "))
            #expect(many.normalized.count == count)
            #expect(!many.intersects(ScopeSet(Self.scopes(count, prefix: "Other"))))
            #expect(many.containsAll(requested: scopes.reversed()))
            let accented = ScopeSet((scopes + ["é"] + scopes).joined(separator: " "))
            #expect(accented.normalized.count == count + 1)
        }
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }

    @Test func scopeSetsOfManyScopesCompareAsSmallOnesDo() {
        let many = ScopeSet(Self.scopes(5_000))
        let others = ScopeSet(Self.scopes(5_000, prefix: "Other"))
        #expect(!many.intersects(others))
        #expect(many.intersects(ScopeSet(Self.scopes(5_000, prefix: "Other") + ["HTTPS://resource.example/Scope.4999"])))
        #expect(many.containsAll(requested: Self.scopes(3_000).map { $0.uppercased() } + ["openid", " profile "]))
        #expect(!many.containsAll(requested: Self.scopes(3_000) + ["missing"]))
        #expect(ScopeSet(Self.scopes(100) + Self.scopes(100)).normalized == Self.scopes(100).map { $0.lowercased() })
    }
}
