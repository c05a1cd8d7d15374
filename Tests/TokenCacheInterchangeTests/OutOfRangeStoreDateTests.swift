import CacheStore
import Foundation
import Testing
import TokenCacheInterchange

/// Dates a store file can hold but no clock shows (NaN, beyond the year 9999) are left out of a
/// keychain-items export instead of being handed to the date formatter.
@Suite struct OutOfRangeStoreDateTests {
    @Test func keychainItemsLeaveThemOut() throws {
        for seconds in [Double.nan, 1e300, -1e300, .infinity] {
            let item = StoreItem(
                accessGroup: "g", account: "a", service: "s", data: Data("{}".utf8),
                created: Date(timeIntervalSince1970: seconds), modified: Date(timeIntervalSince1970: 0))
            let text = String(decoding: KeychainItemsFormat.encode([item], options: .init(includeDates: true)), as: UTF8.self)
            #expect(!text.contains("\"created\""))
            #expect(text.contains("\"modified\""))
        }
    }
}
