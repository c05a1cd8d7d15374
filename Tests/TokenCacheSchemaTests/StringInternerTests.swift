import CacheStore
import Foundation
import Testing

@_spi(Indexing) @testable import TokenCacheSchema

/// `StringInterner`: the same text for the same bytes, one string per distinct long value, and
/// credentials read through it equal to those read without it.
@Suite struct StringInternerTests {
    static func intern(_ text: String, _ interner: inout StringInterner) -> String {
        var copy = text
        return copy.withUTF8 { interner.string(UnsafeRawBufferPointer($0)) }
    }

    static func storage(_ text: String) -> UnsafeRawPointer? {
        text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    @Test func givesTheTextOfTheBytes() {
        var interner = StringInterner(capacity: 8)
        let values = ["", "short", "0123456789abcdef", "héllo wörld, more than fifteen bytes", "uid.utid-login.microsoftonline.com"]
        for value in values + values {
            #expect(Self.intern(value, &interner) == value)
        }
    }

    @Test func sharesOneStringPerLongValue() {
        var interner = StringInterner(capacity: 8)
        let long = "00000000-0000-4000-8000-000000000001.72f988bf-86f1-41af-91ab-2d7cd011db47"
        let first = Self.intern(long, &interner)
        let second = Self.intern(String(long), &interner)
        #expect(first == second)
        #expect(Self.storage(first) == Self.storage(second))
        #expect(Self.storage(first) != Self.storage(long))
    }

    @Test func answersEveryCallWhenFull() {
        var interner = StringInterner(capacity: 4)
        for round in 0..<3 {
            for number in 0..<50 {
                let value = "a value longer than fifteen bytes, number \(number)"
                #expect(Self.intern(value, &interner) == value, "round \(round)")
            }
        }
    }

    @Test func credentialsReadThroughItEqualThoseReadWithout() throws {
        var interner: StringInterner? = StringInterner()
        let payloads = [
            #"{"credential_type":"AccessToken","secret":"a secret longer than fifteen","home_account_id":"uid.utid","environment":"login.microsoftonline.com","client_id":"04b07795-8ddb-461a-bbee-02f9e1bf7b46","realm":"organizations","target":"User.Read Mail.Read openid profile","cached_at":"1700000000","expires_on":"1700003600"}"#,
            #"{"credential_type":"RefreshToken","secret":"rt","home_account_id":"uid.utid","environment":"login.microsoftonline.com","client_id":"04b07795-8ddb-461a-bbee-02f9e1bf7b46","family_id":"1","token_type":"Bearer"}"#,
        ]
        for _ in 0..<2 {
            for (payload, type) in zip(payloads, [UInt32(2001), 2002]) {
                let item = IndexingScannerTests.item(Data(payload.utf8), type: type)
                let shared = try Credential(indexing: item, interner: &interner)
                let plain = try Credential(indexing: item)
                #expect(IndexingScannerTests.Indexed(credential: shared) == IndexingScannerTests.Indexed(credential: plain))
                #expect(shared == plain)
            }
        }
    }
}
