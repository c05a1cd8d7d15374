import CacheStore
import Foundation
import Testing
import TokenCache
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

@Suite struct ExportTests {
    static func sections(_ document: JSONObject) -> [String] { document.keys }

    @Test func writesTheMSALDotNetForm() throws {
        let original = try fixture("msal-dotnet/ExpectedTokenCache.json")
        let (store, _) = try imported(original)
        let (data, report) = try CacheInterchange(store: store).export(.msalJSON)
        #expect(report.exported == 18)
        #expect(report.skipped.isEmpty)
        #expect(!data.starts(with: [0xEF, 0xBB, 0xBF]))
        let document = try parseObject(data)
        #expect(document.keys == ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata"])

        // The keys are MSAL.NET's own (this file was written by MSAL.NET), lower-cased.
        let source = try #require(try JSONValue.parse(original).objectValue)
        for section in document.keys {
            let expected = Set(try #require(source[section]?.objectValue).keys.map { $0.lowercased() })
            let written = Set(try #require(document[section]?.objectValue).keys)
            #expect(written == expected, "\(section)")
            #expect(written.allSatisfy { $0 == $0.lowercased() })
        }
        for (_, section) in document {
            for (_, entry) in try #require(section.objectValue) {
                for (field, value) in try #require(entry.objectValue) {
                    if case .string = value { continue }
                    #expect(value.objectValue != nil, "\(field) is not a string")
                }
            }
        }
        for (_, entry) in try #require(document["AccessToken"]?.objectValue) {
            let at = try #require(entry.objectValue)
            #expect(at["extended_expires_on"] == "23456")
            #expect(at["ext_expires_on"] == "23456")
        }
    }

    @Test func anEmptyStoreWritesAllFiveSections() throws {
        let (data, report) = try CacheInterchange(store: try newStore()).export(.msalJSON)
        #expect(report.exported == 0)
        #expect(data.utf8String == #"{"AccessToken":{},"RefreshToken":{},"IdToken":{},"Account":{},"AppMetadata":{}}"#)
    }

    @Test(arguments: ["msal-dotnet/ExpectedTokenCache.json", "msal-node/cache.json", "msal-go/test_serialized_cache.json",
                      "msal-dotnet/token_cache_adfs.json", "msal-dotnet/MultiCloudTokenCache.json", "msal-dotnet/TokenCacheWithWamId.json"])
    func exportThenImportGivesTheSameItems(_ file: String) throws {
        let (store, _) = try imported(try fixture(file))
        let (data, _) = try CacheInterchange(store: store).export(.msalJSON)
        let (again, _) = try imported(data)
        let before = try store.allItems()
        let after = try again.allItems()
        #expect(after.count == before.count)
        for item in before {
            let twin = try #require(after.first { $0.identity == item.identity }, "\(item.service) lost")
            var payload = try #require(try JSONValue.parse(item.data).objectValue)
            let reimported = try #require(try JSONValue.parse(twin.data).objectValue)
            // The export adds what MSAL.NET writes beside the schema's fields.
            for field in ["ext_expires_on", "extended_expires_on", "key_id"] where reimported[field] != nil && payload[field] == nil {
                payload[field] = reimported[field]
            }
            #expect(reimported == payload, "\(item.service)")
            #expect(twin.generic == item.generic)
        }
    }

    @Test func mergingKeepsTheFilesOtherEntriesAndUnknownNodes() throws {
        let future = try fixture("msal-dotnet/CacheFromTheFuture.json")
        // The store holds one account's refresh token for env_1 only, with a new secret.
        let store = try newStore()
        let rt = Credential(credentialType: .refreshToken, secret: "new-secret", clientId: "d3adb33f-c0de-ed0c-c0de-deadb33fc0d3",
                            homeAccountId: "my-uid.my-utid", environment: "env_1")
        try store.save(try rt.storeItem(accessGroup: group))
        let (data, report) = try CacheInterchange(store: store).export(.msalJSON, mergingInto: future)
        #expect(report.exported == 1)
        #expect(report.kept == 17)
        #expect(report.keptUnknownNodes == 4)
        let document = try parseObject(data)
        #expect(document.keys == ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata", "Foo", "EmptyArrayNode", "EmptyNode", "NullNode"])
        #expect(document["Foo"] == ["Bar1": ["client_id": "1"], "Bar2": ["client_id": "2"]])
        #expect(document["EmptyArrayNode"] == [])
        #expect(document["EmptyNode"] == .object(JSONObject()))
        #expect(document["NullNode"] == .null)
        let rts = try #require(document["RefreshToken"]?.objectValue)
        #expect(rts.count == 4)
        #expect(rts["my-uid.my-utid-env_1-refreshtoken-d3adb33f-c0de-ed0c-c0de-deadb33fc0d3--"]?.objectValue?["secret"] == "new-secret")
        #expect(rts["my-uid.my-utid-env_2-refreshtoken-d3adb33f-c0de-ed0c-c0de-deadb33fc0d3--"]?.objectValue?["secret"] == "access_token_secret")
    }

    @Test func mergingReplacesAnotherLibrarysEntryForTheSameItemUnderItsOwnKey() throws {
        let go = try fixture("msal-go/test_serialized_cache.json")
        let (store, _) = try imported(go)
        let (data, report) = try CacheInterchange(store: store).export(.msalJSON, mergingInto: go)
        #expect(report.kept == 1)  // "an-entry", which is no token
        let document = try parseObject(data)
        #expect(document["unknownEntity"] == ["field1": "1", "field2": "whats"])
        let rts = try #require(document["RefreshToken"]?.objectValue)
        #expect(rts.keys == ["uid.utid-login.windows.net-refreshtoken-my_client_id--"])
        #expect(try #require(document["AccessToken"]?.objectValue)["an-entry"] == ["foo": "bar"])
        let metadata = try #require(document["AppMetadata"]?.objectValue)
        #expect(metadata.keys == ["appmetadata-login.windows.net-my_client_id"])
    }

    @Test func exportToAFileIsPrivateAtomicAndRefusesForeignFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tc-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (store, _) = try imported(try fixture("msal-node/cache.json"))
        let interchange = try CacheInterchange(store: store)

        let path = directory.appendingPathComponent("cache.json").path
        try Data(#"{"Other": {"keep": true}}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o644) == 0)
        let report = try interchange.export(.msalJSON, toFile: path)
        #expect(report.exported == 8)
        #expect(report.keptUnknownNodes == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try parseObject(Data(contentsOf: URL(fileURLWithPath: path)))["Other"] == ["keep": true])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cache.json"])

        let foreign = directory.appendingPathComponent("notes.txt").path
        try Data("[1, 2, 3]".utf8).write(to: URL(fileURLWithPath: foreign))
        #expect(throws: InterchangeError.self) { try interchange.export(.msalJSON, toFile: foreign) }
        #expect(try String(contentsOfFile: foreign, encoding: .utf8) == "[1, 2, 3]")

        let missingDirectory = directory.appendingPathComponent("no/such/dir/cache.json").path
        let error = try #require(throws: InterchangeError.self) { try interchange.export(.msalJSON, toFile: missingDirectory) }
        #expect(!error.isDataError)
    }

    @Test func keychainItemsRoundTripEveryItemExactly() throws {
        let store = try newStore([group, "other"])
        let items = [
            StoreItem(accessGroup: group, account: "a", service: "s", generic: Data([0xFF, 0x00, 0x80]), type: nil, data: Data([1, 2, 3])),
            StoreItem(accessGroup: "other", account: "", service: "", generic: Data(), type: 0, data: Data("x".utf8)),
            StoreItem(accessGroup: group, account: "b", service: "MSOpenTech.ADAL.1|x", generic: Data("MSOpenTech.ADAL.1".utf8), data: Data("bplist00".utf8)),
        ]
        try store.save(items)
        let (data, report) = try CacheInterchange(store: store).export(.keychainItems)
        #expect(report.exported == 3)
        #expect(ImportFormat.detect(data) == .keychainItems)
        let target = try newStore([group, "other"])
        let imported = try CacheInterchange(store: target).importData(data, source: "items.json")
        #expect(imported.format == .keychainItems)
        #expect(imported.imported == 3)
        let strip = { (item: StoreItem) -> StoreItem in
            var copy = item
            copy.created = nil
            copy.modified = nil
            return copy
        }
        #expect(try target.allItems().map(strip) == items)

        // A group the store was not opened for is refused, and nothing is written.
        let narrow = try newStore([group])
        #expect(throws: CacheStoreError.self) { try CacheInterchange(store: narrow).importData(data, source: "items.json") }
        #expect(try narrow.allItems().isEmpty)
    }

    @Test func itemsWithoutAnMSALCounterpartAreReportedNotWritten() throws {
        let store = try newStore()
        try store.save([
            StoreItem(accessGroup: group, account: "x", service: "y", generic: Data("MSOpenTech.ADAL.1".utf8), data: Data("bplist".utf8)),
            StoreItem(accessGroup: group, account: "uid.utid-env", service: "refreshtoken-c--", type: 2002, data: Data("{not json".utf8)),
            try Credential(credentialType: .familyRefreshToken, secret: "frt", clientId: "c", homeAccountId: "uid.utid",
                           environment: "env", familyId: "1").storeItem(accessGroup: group),
        ])
        let (data, report) = try CacheInterchange(store: store).export(.msalJSON)
        #expect(report.exported == 1)
        #expect(report.skipped.count == 2)
        #expect(report.skipped.allSatisfy { !$0.description.contains("not json") })
        let rts = try #require(try parseObject(data)["RefreshToken"]?.objectValue)
        #expect(rts.keys == ["uid.utid-env-refreshtoken-1--"])
        #expect(rts["uid.utid-env-refreshtoken-1--"]?.objectValue?["credential_type"] == "RefreshToken")
    }
}
