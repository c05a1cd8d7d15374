import CacheStore
import CacheStoreMemory
import Foundation
import Testing
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

/// The blob level: a partition loaded with a version, stored back as a per-item merge.
@Suite struct MSALBlobStoreTests {
    static let alice = "uid-a.utid"
    static let bob = "uid-b.utid"

    static func refreshToken(_ home: String, client: String = "app", secret: String) -> JSONObject {
        [
            "credential_type": "RefreshToken", "home_account_id": .string(home), "environment": "login.microsoftonline.com",
            "client_id": .string(client), "secret": .string(secret),
        ]
    }

    static func accessToken(_ home: String, secret: String) -> JSONObject {
        [
            "credential_type": "AccessToken", "home_account_id": .string(home), "environment": "login.microsoftonline.com",
            "client_id": "app", "realm": "utid", "target": "User.Read", "secret": .string(secret),
            "cached_at": "1700000000", "expires_on": "4102444800", "extended_expires_on": "4102444800",
        ]
    }

    static func document(_ entries: [(String, JSONObject)]) -> Data {
        var sections: [String: JSONObject] = [:]
        for (index, (section, entry)) in entries.enumerated() { sections[section, default: JSONObject()]["k\(index)"] = .object(entry) }
        return JSONValue.object(JSONObject(sections.map { ($0.key, JSONValue.object($0.value)) })).serialized()
    }

    /// The document with every `from` secret replaced by `to`.
    static func replacing(_ data: Data, _ from: String, _ to: String) -> Data {
        Data(data.utf8String.replacingOccurrences(of: from, with: to).utf8)
    }

    private func seeded() throws -> (MemoryStore, MSALBlobStore) {
        let store = try newStore()
        _ = try CacheInterchange(store: store).importData(Self.document([
            ("RefreshToken", Self.refreshToken(Self.alice, secret: "rt-a-1")),
            ("AccessToken", Self.accessToken(Self.alice, secret: "at-a-1")),
            ("RefreshToken", Self.refreshToken(Self.bob, secret: "rt-b-1")),
        ]), source: "seed", format: .msalJSON)
        return (store, try MSALBlobStore(store: store))
    }

    private func secrets(_ store: any ItemStore) throws -> Set<String> {
        Set(try store.allItems().compactMap { try JSONValue.parse($0.data).objectValue?["secret"]?.stringValue })
    }

    @Test func anAccountPartitionHoldsThatAccountOnly() throws {
        let (_, blobs) = try seeded()
        let (document, version) = try blobs.load(.account(homeAccountId: Self.alice.uppercased()))
        let text = document.utf8String
        #expect(text.contains("rt-a-1") && text.contains("at-a-1") && !text.contains("rt-b-1"))
        #expect(version.hasPrefix("1."))
        #expect(try parseObject(document).keys.sorted() == ["AccessToken", "Account", "AppMetadata", "IdToken", "RefreshToken"])
        let report = try blobs.store(document, partition: .account(homeAccountId: Self.alice), version: version)
        #expect(report.saved == 0 && report.removed == 0 && report.conflicts.isEmpty)
    }

    @Test func theCallersChangesAreWrittenAndOthersChangesKept() throws {
        let (store, blobs) = try seeded()
        let partition = MSALPartition.account(homeAccountId: Self.alice)
        let (document, version) = try blobs.load(partition)
        // Another writer changes the access token; this caller changes the refresh token.
        _ = try CacheInterchange(store: store).importData(
            Self.document([("AccessToken", Self.accessToken(Self.alice, secret: "at-a-2"))]), source: "other", format: .msalJSON)
        let report = try blobs.store(Self.replacing(document, "rt-a-1", "rt-a-9"), partition: partition, version: version)
        #expect(report.saved == 1 && report.removed == 0 && report.conflicts.isEmpty)
        #expect(try secrets(store) == ["rt-a-9", "at-a-2", "rt-b-1"])
    }

    @Test func removedEntriesAreRemovedUnlessAnotherWriterChangedThem() throws {
        let (store, blobs) = try seeded()
        let partition = MSALPartition.account(homeAccountId: Self.alice)
        let (_, version) = try blobs.load(partition)
        _ = try CacheInterchange(store: store).importData(
            Self.document([("AccessToken", Self.accessToken(Self.alice, secret: "at-a-2"))]), source: "other", format: .msalJSON)
        let report = try blobs.store(Data(#"{"Other":{"x":1}}"#.utf8), partition: partition, version: version)
        #expect(report.removed == 1 && report.saved == 1 && report.ignored.isEmpty)
        #expect(try secrets(store) == ["at-a-2", "rt-b-1"])
        // The unknown node is kept for this partition and handed out with it, after the sections.
        let (document, next) = try blobs.load(partition)
        #expect(try parseObject(document).keys == ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata", "Other"])
        #expect(try parseObject(document)["Other"] == .object(["x": .number(JSONNumber(1))]))
        #expect(try blobs.load(.account(homeAccountId: Self.bob)).document.utf8String.contains("Other") == false)
        // Removed by the caller, unchanged since: removed.
        let removal = try blobs.store(Data("{}".utf8), partition: partition, version: next)
        #expect(removal.removed == 2)
        #expect(try !blobs.load(partition).document.utf8String.contains("Other"))
    }

    @Test func changesOnBothSidesConflict() throws {
        let (store, blobs) = try seeded()
        let partition = MSALPartition.account(homeAccountId: Self.alice)
        let (document, version) = try blobs.load(partition)
        _ = try CacheInterchange(store: store).importData(
            Self.document([("RefreshToken", Self.refreshToken(Self.alice, secret: "rt-a-2"))]), source: "other", format: .msalJSON)
        let mine = Self.replacing(Self.replacing(document, "rt-a-1", "rt-a-9"), "at-a-1", "at-a-9")
        #expect(throws: MSALBlobConflictError.self) {
            try blobs.store(mine, partition: partition, version: version, failOnConflict: true)
        }
        #expect(try secrets(store) == ["rt-a-2", "at-a-1", "rt-b-1"], "nothing written")
        let report = try blobs.store(mine, partition: partition, version: version)
        #expect(report.conflicts.map(\.section) == ["RefreshToken"])
        #expect(try secrets(store) == ["rt-a-2", "at-a-9", "rt-b-1"])
        // The returned version is the caller's document: storing it again changes nothing.
        let again = try blobs.store(mine, partition: partition, version: report.version)
        #expect(again.saved == 0 && again.removed == 0 && again.conflicts.isEmpty)
    }

    @Test func entriesOutsideThePartitionAndBadVersionsAreRefused() throws {
        let (store, blobs) = try seeded()
        let (document, version) = try blobs.load(.account(homeAccountId: Self.alice))
        let report = try blobs.store(document, partition: .account(homeAccountId: Self.bob), version: nil)
        #expect(report.saved == 0 && report.ignored.count == 2)
        #expect(throws: InterchangeError.self) { try blobs.store(document, partition: .all, version: "2.x") }
        #expect(throws: InterchangeError.self) { try blobs.store(Data("[]".utf8), partition: .all, version: version) }
        #expect(try secrets(store) == ["rt-a-1", "at-a-1", "rt-b-1"])
        let (all, _) = try blobs.load(.all)
        #expect(all.utf8String.contains("rt-b-1"))
        let (client, _) = try blobs.load(.client(clientId: "app"))
        #expect(!client.utf8String.contains("rt-a-1"), "app tokens only: no home account")
    }
}
