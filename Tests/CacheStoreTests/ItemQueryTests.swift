import CacheStore
import Foundation
import Testing

@Suite struct ItemQueryTests {
    let item = StoreItem(
        accessGroup: "g", account: "a", service: "s", generic: Data("gen".utf8), type: 2001, data: Data())

    @Test func emptyQueryMatchesEverything() {
        #expect(ItemQuery().matches(item))
    }

    @Test func eachNamedAttributeMustMatch() {
        #expect(ItemQuery(accessGroup: "g", account: "a", service: "s", genericString: "gen", type: 2001).matches(item))
        #expect(!ItemQuery(accessGroup: "h").matches(item))
        #expect(!ItemQuery(account: "A").matches(item))
        #expect(!ItemQuery(service: "s ").matches(item))
        #expect(!ItemQuery(generic: Data("ge".utf8)).matches(item))
        #expect(!ItemQuery(type: 2002).matches(item))
        #expect(!ItemQuery(type: .absent).matches(item))
    }

    @Test func absentTypeMatchesOnlyTypelessItems() {
        var typeless = item
        typeless.type = nil
        #expect(ItemQuery(type: .absent).matches(typeless))
        #expect(!ItemQuery(type: 0).matches(typeless))
    }

    @Test func stringsCompareByBytesNotCanonicalEquivalence() {
        var composed = item
        composed.account = "caf\u{E9}"
        #expect(ItemQuery(account: "caf\u{E9}").matches(composed))
        #expect(!ItemQuery(account: "cafe\u{301}").matches(composed))
    }

    @Test func identityQueriesAreComplete() {
        #expect(item.identity.query.identity == item.identity)
        #expect(ItemQuery(account: "a").identity == nil)
        let typeless = ItemIdentity(accessGroup: "g", account: "a", service: "s", type: nil)
        #expect(typeless.query.type == .absent)
    }

    @Test func identityEqualityAndHashUseBytes() {
        let one = ItemIdentity(accessGroup: "g", account: "caf\u{E9}", service: "s", type: 1)
        let other = ItemIdentity(accessGroup: "g", account: "cafe\u{301}", service: "s", type: 1)
        #expect(one != other)
        #expect(Set([one, other]).count == 2)
        let split1 = ItemIdentity(accessGroup: "ab", account: "c", service: "", type: nil)
        let split2 = ItemIdentity(accessGroup: "a", account: "bc", service: "", type: nil)
        #expect(split1 != split2)
        #expect(one == ItemIdentity(accessGroup: "g", account: "caf\u{E9}", service: "s", type: 1))
    }
}
