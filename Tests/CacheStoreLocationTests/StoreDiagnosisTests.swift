import CacheStore
import CacheStoreLocation
import CacheStoreSQLite
import CacheStoreSecretService
import Foundation
import Testing

@Suite struct StoreDiagnosisTests {
    let groups = try! AccessGroups(["com.microsoft.adalcache"])
    /// No D-Bus session: the Secret Service checks warn, the file checks decide.
    let noSession = ["HOME": "/nonexistent", "TOKENCACHE_KEY": "file"]

    @Test func aMemoryStoreIsUsableAndNeedsNoSecretService() {
        let diagnosis = StoreDiagnosis(specification: .memory, accessGroups: groups, environment: noSession)
        #expect(diagnosis.isUsable)
        #expect(diagnosis.checks.map(\.name) == ["backend"])
        #expect(diagnosis.checks.contains { $0.name == "backend" && $0.detail.hasPrefix("memory") })
    }

    @Test func aRedisStoreIsNotCheckedForTheSecretService() throws {
        // Nothing listens on port 1: the backend check fails, and no D-Bus or libsecret check warns.
        let specification = try StoreSpecification(parsing: "redis://127.0.0.1:1?timeout=300", currentDirectory: "/")
        let diagnosis = StoreDiagnosis(specification: specification, accessGroups: groups, environment: noSession)
        #expect(!diagnosis.checks.isEmpty)
        #expect(!diagnosis.checks.contains { ["libsecret", "D-Bus session", "Secret Service"].contains($0.name) }, "\(diagnosis.checks)")
    }

    @Test func aSQLiteStoreWithoutASessionWarnsAboutIt() {
        let diagnosis = StoreDiagnosis(specification: .sqlite(path: "/nonexistent/cache.sqlite"), accessGroups: groups, environment: noSession)
        let session = diagnosis.checks.first { $0.name == "D-Bus session" }
        #expect(session?.verdict == .warning)
        #expect(session?.remedy?.contains("dbus-run-session") == true)
    }

    @Test func aStoreThatDoesNotExistYetIsReportedNotCreated() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diagnosis-\(UUID().uuidString)")
        let path = directory.appendingPathComponent("cache.sqlite").path
        let diagnosis = StoreDiagnosis(specification: .sqlite(path: path), accessGroups: groups, environment: noSession)
        #expect(diagnosis.isUsable)
        #expect(diagnosis.checks.map(\.name) == ["libsecret", "D-Bus session", "backend", "key source", "store file"])
        #expect(diagnosis.checks.last?.detail.contains("does not exist yet") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.path), "a diagnosis creates nothing")
    }

    @Test func anExistingStoreIsCheckedItemsAndKeysIncluded() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diagnosis-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cache.sqlite").path
        let store = try StoreOpener.open(.sqlite(path: path), accessGroups: groups, environment: noSession)
        try store.save(StoreItem(accessGroup: "com.microsoft.adalcache", account: "a", service: "s", data: Data("x".utf8)))

        let diagnosis = StoreDiagnosis(specification: .sqlite(path: path), accessGroups: groups, environment: noSession)
        #expect(diagnosis.isUsable, "\(diagnosis.checks)")
        #expect(diagnosis.checks.contains { $0.name == "integrity check" && $0.detail == "ok" })
        let items = try #require(diagnosis.checks.first { $0.name == "items in com.microsoft.adalcache" })
        #expect(items.detail.hasPrefix("1 item, 1 sealed; data key "))

        try FileManager.default.removeItem(atPath: path + ".key")
        let withoutKey = StoreDiagnosis(specification: .sqlite(path: path), accessGroups: groups, environment: noSession)
        #expect(!withoutKey.isUsable)
        #expect(withoutKey.checks.first { $0.verdict == .problem }?.remedy == "restore the key file \(path).key beside the store")
    }

    @Test func anUnknownKeyPolicyIsAProblemWithItsRemedy() {
        let environment = ["HOME": "/nonexistent", "TOKENCACHE_KEY": "tpm"]
        let diagnosis = StoreDiagnosis(specification: .sqlite(path: "/nonexistent/c.sqlite"), accessGroups: groups, environment: environment)
        #expect(!diagnosis.isUsable)
        let check = diagnosis.checks.last
        #expect(check?.name == "key source")
        #expect(check?.remedy == StoreLocationError.invalidKeyPolicy("tpm").description)
    }
}

@Suite struct StoreAdviceTests {
    @Test func locationErrorsAreBadInput() {
        #expect(StoreLocationError.noDefaultLocation.category == .badInput)
        #expect(StoreLocationError.invalidSpecification("x", reason: "y").category == .badInput)
    }

    @Test func errorsThatAnotherChoiceOfStoreGetsPastHaveAdvice() {
        #expect(StoreAdvice(for: CacheStoreError.accessGroupNotAllowed("x", allowed: ["a"])) == .allowAccessGroup("x"))
        #expect(StoreAdvice(for: StoreLocationError.noDefaultLocation) == .chooseAnotherStore)
        #expect(StoreAdvice(for: SQLiteStoreError.notATokenCacheStore(path: "/p")) == .chooseAnotherStore)
        #expect(StoreAdvice(for: SecretServiceError.noSessionBus) == .useSQLiteWithKeyFile)
        #expect(StoreAdvice(for: SecretServiceError.libraryUnavailable(library: "libsecret-1.so.0", reason: "absent")) == .useSQLiteWithKeyFile)
        #expect(StoreAdvice(for: CacheStoreError.noAccessGroups) == nil)
        #expect(StoreAdvice(for: StoreLocationError.invalidKeyPolicy("x")) == nil)
    }

    @Test func libraryErrorsNameNoCommandLineFlag() {
        let errors: [any Error] = [
            CacheStoreError.accessGroupNotAllowed("x", allowed: ["a"]), StoreLocationError.noDefaultLocation,
            SQLiteStoreError.notATokenCacheStore(path: "/p"), SecretServiceError.noSessionBus,
            SecretServiceError.collectionNotFound("c"), SecretServiceError.libraryUnavailable(library: "l", reason: "r"),
        ]
        for error in errors {
            let text = "\(error)"
            #expect(!text.contains("--store") && !text.contains("--access-group") && !text.contains("TOKENCACHE_"), "\(text)")
        }
    }
}
