import CacheStore
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing

/// The whole read that leaves items out (`SplitReadingStore`) and the reads of those by account
/// prefix: SQL's test of a plain account must be `LeftOutItems.isPlain`, byte for byte, or an item
/// would be read twice or never.
@Suite("SQLite store: reads that leave items out")
struct SplitReadingTests {
    static let leftOut = LeftOutItems(types: [2001, 2006])

    /// Accounts plain and not: capitals anywhere, each white space at either end and inside,
    /// non-ASCII, NUL, DEL, the empty account, and homes that start one another.
    static func accounts(using generator: inout SplitMix64) -> [String] {
        var accounts = [
            "", "-login.microsoftonline.com", "a.b-login.windows.net", "a.b-c.d-login.windows.net", "a.b-", "a.b", "a.b.",
            "uid.utid-login.microsoftonline.com", "UID.utid-login.microsoftonline.com", "uid.utid-Login.microsoftonline.com",
            "uid.utid-login.microsoftonline.coM", "uid utid-login", "uid.utid-login.microsoftonline.com\u{7F}", "\u{7F}uid",
            "uid.utid-login.microsoftonline.com\u{0}X", "\u{0}", "é.utid-login", "uid.é-login", "uid.utid-login.microsoftonline.com_",
        ]
        for space in [" ", "\t", "\n", "\u{0B}", "\u{0C}", "\r"] {
            accounts += [space + "uid.utid-login", "uid.utid-login" + space, "uid" + space + "utid-login"]
        }
        let alphabet = Array("abcxyzAZ019.-_ \t\u{7F}@+/é".unicodeScalars)
        for _ in 0..<300 {
            let length = Int(generator.next() % 12)
            accounts.append(String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })))
        }
        return accounts
    }

    @Test func theItemsLeftOutAreThePlainOnesOfTheTypesAndEachPrefixFindsItsOwn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try SQLiteStore(path: directory.path("cache.sqlite"), accessGroups: try AccessGroups(["group-a", "group-b"]))
        var generator = SplitMix64(seed: 3)
        var written: [StoreItem] = []
        for (position, account) in Self.accounts(using: &generator).enumerated() {
            for type: UInt32? in [2001, 2006, 2002, nil] {
                let group = position % 3 == 0 ? "group-b" : "group-a"
                written.append(StoreItem(
                    accessGroup: group, account: account, service: "service-\(position)", generic: nil, type: type,
                    data: Data("payload \(position)".utf8)))
            }
        }
        // Written in batches, in order, so that the store's order is the order written.
        for start in stride(from: 0, to: written.count, by: 200) {
            try store.save(Array(written[start..<min(written.count, start + 200)]))
        }
        let stored = try store.allItems()
        try #require(stored.count == written.count)
        func names(_ items: [StoreItem]) -> [String] { items.map { "\($0.accessGroup)|\(Array($0.account.utf8))|\($0.service)|\($0.type.map(String.init) ?? "-")" } }
        /// The first difference between two lists of names (`nil` when equal): a failure says where.
        func difference(_ got: [StoreItem], _ expected: [StoreItem]) -> String? {
            let (got, expected) = (names(got), names(expected))
            guard got != expected else { return nil }
            let position = (0..<min(got.count, expected.count)).first { got[$0] != expected[$0] } ?? min(got.count, expected.count)
            return "\(got.count) items, \(expected.count) expected; at \(position): \(got.dropFirst(position).first ?? "end") / \(expected.dropFirst(position).first ?? "end")"
        }

        let isLeftOut = { (item: StoreItem) in Self.leftOut.contains(type: item.type, account: item.account) }
        #expect(stored.contains(where: isLeftOut) && stored.contains { !isLeftOut($0) && $0.type == 2001 })

        var kept: [StoreItem] = []
        try store.readAllItems(chunkSize: 7, leavingOut: Self.leftOut) { kept += $0 }
        #expect(difference(kept, stored.filter { !isLeftOut($0) }) == nil, "the whole read keeps exactly what is not left out, in order")
        #expect(try difference(store.leftOutItems(Self.leftOut, accountPrefix: nil), stored.filter(isLeftOut)) == nil)

        var prefixes: Set<String> = ["a.b-", "a.b", "uid.utid-", "-", "UID", " uid", "uid\u{7F}", "\u{7F}", "é", "x", "zz", "_"]
        for account in Self.accounts(using: &generator) {
            let utf8 = Array(account.utf8)
            for end in 1...max(1, utf8.count) where end <= utf8.count { prefixes.insert(String(decoding: utf8[..<end], as: UTF8.self)) }
        }
        for prefix in prefixes {
            let expected = stored.filter { isLeftOut($0) && $0.account.utf8.starts(with: prefix.utf8) }
            #expect(try difference(store.leftOutItems(Self.leftOut, accountPrefix: prefix), expected) == nil, "prefix \(Array(prefix.utf8))")
        }
    }

    @Test func plainIsASCIIWithoutCapitalsNULOrWhiteSpaceAtTheEnds() {
        for plain in ["", "a", "uid.utid-login.microsoftonline.com", "a b", "a\tb", "-", "_", "!~", "a\u{7F}"] {
            #expect(LeftOutItems.isPlain(plain), "\(Array(plain.utf8))")
        }
        for other in ["A", "aB", " a", "a ", "\ta", "a\r", "\u{0B}a", "a\u{0C}", "a\u{0}b", "é", "aé"] {
            #expect(!LeftOutItems.isPlain(other), "\(Array(other.utf8))")
        }
        #expect(LeftOutItems(types: [2001]).contains(type: 2001, account: "a-b"))
        #expect(!LeftOutItems(types: [2001]).contains(type: 2002, account: "a-b"))
        #expect(!LeftOutItems(types: [2001]).contains(type: nil, account: "a-b"))
        #expect(LeftOutItems.mayStartPlainAccount("a ") && !LeftOutItems.mayStartPlainAccount(" a") && !LeftOutItems.mayStartPlainAccount("aB"))
    }
}
