import CacheStore
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import TestSupport
import Testing
@testable import TokenCacheInterchange
import TokenCacheSchema

/// MSAL JSON imports are read as a stream and written in bounded batches (see
/// `CacheInterchange+Streaming.swift`): the same items as the whole read, nothing written for a
/// malformed file, the batches committed before a store failure reported, and the write-ahead log
/// folded back in.
@Suite struct StreamedImportTests {
    /// An MSAL JSON cache of `accounts` accounts, four entries each (an account, a refresh token,
    /// two access tokens); `entry` may replace the JSON of the entry with a given key.
    static func document(accounts: Int, secretSize: Int = 8, replacing entry: (String) -> String? = { _ in nil }) -> Data {
        var sections: [String: [String]] = [:]
        func add(_ section: String, _ key: String, _ json: String) {
            sections[section, default: []].append("\"\(key)\": \(entry(key) ?? json)")
        }
        let secret = String(repeating: "s", count: secretSize)
        for n in 0..<accounts {
            let home = "u\(n).t"
            let common = #""home_account_id": "\#(home)", "environment": "login.windows.net", "client_id": "c""#
            add("Account", "a\(n)", #"{"home_account_id": "\#(home)", "environment": "login.windows.net", "realm": "t", "local_account_id": "u\#(n)", "username": "u\#(n)@x.y", "authority_type": "MSSTS"}"#)
            add("RefreshToken", "r\(n)", #"{"credential_type": "RefreshToken", \#(common), "secret": "\#(secret)"}"#)
            for scope in 0..<2 {
                add("AccessToken", "t\(n).\(scope)", #"{"credential_type": "AccessToken", \#(common), "realm": "t", "target": "s\#(scope)", "secret": "\#(secret)", "cached_at": "1700000000", "expires_on": "1700003600"}"#)
            }
        }
        let body = sections.keys.sorted().map { "\"\($0)\": {\(sections[$0]!.joined(separator: ", "))}" }
        return Data("{\(body.joined(separator: ", "))}".utf8)
    }

    static func interchange(_ store: any ItemStore, batch items: Int) throws -> CacheInterchange {
        var interchange = try CacheInterchange(store: store)
        interchange.batchLimit = ImportBatchLimit(items: items, bytes: 1 << 30)
        return interchange
    }

    static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    @Test func batchesWriteWhatTheWholeReadWrites() throws {
        let data = Self.document(accounts: 25)
        let whole = try ImportDecoder.decode(data, source: "test", accessGroup: group)
        let store = try newStore()
        let report = try Self.interchange(store, batch: 7).importData(data, source: "test")
        #expect(try store.allItems().map(\.identity) == whole.items.map(\.identity))
        #expect(try store.allItems().map(\.data) == whole.items.map(\.data))
        #expect(report.entries == 100 && report.imported == 100 && report.added == 100 && report.replaced == 0)
        // Again: every item replaced, none added, nothing else changed.
        let again = try Self.interchange(store, batch: 7).importData(data, source: "test")
        #expect(again.imported == 100 && again.added == 0 && again.replaced == 100)
        #expect(try store.allItems().count == 100)
    }

    @Test func lookupKeysAreSetForEveryBatch() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try SQLiteStore(path: directory.path("store.db"), accessGroups: AccessGroups([group]))
        _ = try Self.interchange(store, batch: 5).importData(Self.document(accounts: 12), source: "test")
        for n in 0..<12 {
            let partitions = try #require(try store.partitions(withLookupKey: LookupKey.username("u\(n)@x.y")))
            #expect(partitions == [PartitionID(accessGroup: group, account: "u\(n).t-login.windows.net")])
        }
    }

    @Test func aMalformedEntryAfterManyBatchesWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try SQLiteStore(path: directory.path("store.db"), accessGroups: AccessGroups([group]))
        try store.save(StoreItem(accessGroup: group, account: "keep", service: "me", type: 2002, data: Data(#"{"secret":"s"}"#.utf8)))
        let before = try store.allItems()
        // The last access token of the last account: dozens of batches of 3 would come before it.
        let data = Self.document(accounts: 30) { $0 == "t29.1" ? #"{"credential_type": "AccessToken", "client_id": {}, "secret": "x"}"# : nil }
        #expect {
            try Self.interchange(store, batch: 3).importData(data, source: "big.json")
        } throws: { error in
            guard case .invalidEntry(let source, let path, _)? = error as? InterchangeError else { return false }
            return source == "big.json" && path == "AccessToken 't29.1'"
        }
        #expect(try store.allItems() == before)
    }

    @Test func aStoreFailureMidwayReportsTheCommittedBatches() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var options = SQLiteStore.Options()
        options.maximumDataSize = 1000
        let store = try SQLiteStore(path: directory.path("store.db"), accessGroups: AccessGroups([group]), options: options)
        // Account 2's refresh token is too large for this store: entries are sorted by section, so
        // the accounts come first (12), then access tokens (24), then refresh tokens.
        let big = String(repeating: "x", count: 2000)
        let data = Self.document(accounts: 12) { $0 == "r2" ? #"{"credential_type": "RefreshToken", "home_account_id": "u2.t", "environment": "login.windows.net", "client_id": "c", "secret": "\#(big)"}"# : nil }
        var caught: ImportInterruptedError?
        do {
            _ = try Self.interchange(store, batch: 5).importData(data, source: "big.json")
        } catch let error as ImportInterruptedError {
            caught = error
        }
        let error = try #require(caught)
        // Batches of 5: items 1-35 committed in 7 batches; the 38th item (r2) fails the 8th.
        #expect(error.written == 35 && error.total == 48)
        #expect(error.category == .badInput)
        #expect(error.description.hasPrefix("big.json: the import stopped after 35 of 48 items"))
        #expect(try store.allItems().count == 35)
        // A failure in the first batch commits nothing and is the store's own error.
        let fresh = try SQLiteStore(path: directory.path("fresh.db"), accessGroups: AccessGroups([group]), options: options)
        #expect(throws: CacheStoreError.self) { try Self.interchange(fresh, batch: 50).importData(data, source: "big.json") }
        #expect(try fresh.allItems().isEmpty)
    }

    @Test func theWriteAheadLogStaysAtAboutOneBatch() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.db")
        let store = try SQLiteStore(path: path, accessGroups: AccessGroups([group]))
        // About 8 MB of payload in batches of 100 items (about 0.1 MB).
        let data = Self.document(accounts: 2000, secretSize: 900)
        var largestLog = 0
        let report = try Self.interchange(store, batch: 100).importData(data, source: "test") { _, total in
            if total > 0 { largestLog = max(largestLog, Self.fileSize(path + "-wal")) }
        }
        #expect(report.imported == 8000)
        let database = Self.fileSize(path)
        #expect(database > 8_000_000)
        // One transaction would have put every page in the log.
        #expect(largestLog > 0 && largestLog < database / 4)
        // No other reader: the log is emptied after the last batch (the store is still open, so
        // this is not SQLite's checkpoint at close).
        #expect(Self.fileSize(path + "-wal") == 0)
    }

    @Test func repeatedKeysAreReadAsTheWholeReadReadsThem() throws {
        let first = #"{"credential_type": "RefreshToken", "home_account_id": "u.t", "environment": "login.windows.net", "client_id": "c", "secret": "first"}"#
        let second = #"{"credential_type": "RefreshToken", "home_account_id": "v.t", "environment": "login.windows.net", "client_id": "c", "secret": "second"}"#
        let documents = [
            #"{"RefreshToken": {"k": \#(first), "k": \#(second)}}"#,
            #"{"RefreshToken": {"k": \#(first)}, "RefreshToken": {"j": \#(second)}}"#,
            #"{"RefreshToken": {"k": \#(first)}, "RefreshToken": null}"#,
        ]
        for text in documents {
            let whole = try ImportDecoder.decode(Data(text.utf8), source: "test", accessGroup: group)
            let store = try newStore()
            _ = try Self.interchange(store, batch: 1).importData(Data(text.utf8), source: "test")
            #expect(try store.allItems().map(\.data) == whole.items.map(\.data), "\(text)")
        }
    }

    @Test func errorsAreTheWholeReadsErrors() throws {
        let entry = #"{"credential_type": "RefreshToken", "home_account_id": "u.t", "environment": "login.windows.net", "client_id": "c", "secret": "s"}"#
        let bad = #"{"credential_type": "RefreshToken", "client_id": {}, "secret": "s"}"#
        let documents = [
            #"{"RefreshToken": {"a": \#(bad)}, "AccessToken": [1]}"#,  // the section's kind is reported first
            #"{"RefreshToken": {"a": \#(bad)}, "x": [1,}"#,  // and a JSON error before both
            #"{"RefreshToken": {"a": \#(entry), "b": \#(bad)}}"#,
            #"{"IdToken": 3}"#,
            #"{"Account": {"a": []}}"#,
            #"{"RefreshToken": {"a": \#(entry)}} x"#,
        ]
        for text in documents {
            var expected: InterchangeError?
            do { _ = try ImportDecoder.decode(Data(text.utf8), source: "test", accessGroup: group) } catch { expected = error }
            let store = try newStore()
            #expect(throws: try #require(expected)) { try Self.interchange(store, batch: 1).importData(Data(text.utf8), source: "test") }
            #expect(try store.allItems().isEmpty)
        }
    }
}
