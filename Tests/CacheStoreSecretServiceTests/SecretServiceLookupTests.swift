@testable import CacheStoreSecretService
import Foundation
import Testing

/// `SecretServiceLookup` against the real keyring of `scripts/test.sh`'s session. Every item carries
/// a unique `lookup-test` attribute, so parallel tests never see each other's items.
@Suite("Secret Service lookup (read-only)", .enabled(if: keyringAvailable, "needs a D-Bus session with a keyring (scripts/test.sh starts one)"))
struct SecretServiceLookupTests {
    /// Writes an item the way libsecret's `secret_password_store` does: the attributes plus `xdg:schema`.
    static func seed(collection: String = "default", label: String, schema: String, _ attributes: [(String, String)], secret: Data) throws -> String {
        let connection = try SecretServiceConnection(collection: collection, unlock: .fail)
        return try connection.store(label: label, attributes: [("xdg:schema", schema)] + attributes, secret: secret, contentType: "text/plain")
    }

    static func remove(_ paths: [String], collection: String = "default") throws {
        let connection = try SecretServiceConnection(collection: collection, unlock: .fail)
        for path in paths { try connection.delete(path) }
    }

    @Test func findsItemsByAnySubsetOfTheirAttributesAcrossCollections() throws {
        let run = UUID().uuidString
        let big = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 31 + 7) })  // far beyond secret-tool's 8 KiB
        let first = try Self.seed(label: "first \(run)", schema: "org.example.lookup", [("lookup-test", run), ("kind", "a")], secret: big)
        let second = try Self.seed(label: "second", schema: "org.example.other", [("lookup-test", run), ("kind", "b")], secret: Data("two".utf8))
        let third = try Self.seed(collection: "session", label: "", schema: "org.example.lookup", [("lookup-test", run), ("kind", "c")], secret: Data())
        defer {
            try? Self.remove([first, second])
            try? Self.remove([third], collection: "session")
        }

        let lookup = try SecretServiceLookup()
        let all = try lookup.search([("lookup-test", run)])
        #expect(Set(all.map(\.path)) == [first, second, third], "every collection is searched, the session one too")
        let bySchema = try lookup.search([("xdg:schema", "org.example.lookup"), ("lookup-test", run)])
        #expect(Set(bySchema.map(\.path)) == [first, third])
        #expect(try lookup.search([("lookup-test", run), ("kind", "z")]).isEmpty)

        let item = try #require(all.first { $0.path == first })
        #expect(item.label == "first \(run)")
        #expect(item.attributes == ["xdg:schema": "org.example.lookup", "lookup-test": run, "kind": "a"])
        #expect(item.schema == "org.example.lookup")
        #expect(!item.isLocked)
        #expect(item.collectionPath + "/" + item.path.split(separator: "/").last! == item.path)
        #expect(!item.collectionLabel.isEmpty)
        #expect(all.first { $0.path == third }?.collectionPath.hasSuffix("/session") == true)

        let secrets = try lookup.secrets(of: all)
        #expect(secrets[first] == big)
        #expect(secrets[second] == Data("two".utf8))
        #expect(secrets[third] == Data())
    }

    @Test func lookingUpChangesNothing() throws {
        let run = UUID().uuidString
        let path = try Self.seed(label: "keep", schema: "org.example.lookup", [("lookup-test", run)], secret: Data("unchanged".utf8))
        defer { try? Self.remove([path]) }
        let lookup = try SecretServiceLookup()
        for _ in 0..<3 {
            _ = try lookup.secrets(of: try lookup.search([("lookup-test", run)]))
            #expect(try lookup.search([("lookup-test", run), ("missing", "x")]).isEmpty)
        }
        let again = try SecretServiceLookup().search([("lookup-test", run)])
        #expect(again.map(\.path) == [path])
        #expect(again.first?.attributes == ["xdg:schema": "org.example.lookup", "lookup-test": run])
        #expect(try SecretServiceLookup().secrets(of: again)[path] == Data("unchanged".utf8))
    }

    @Test func aLockedItemsSecretIsATypedErrorNotAPrompt() throws {
        let lookup = try SecretServiceLookup()
        let locked = SecretServiceItem(
            path: "/org/freedesktop/secrets/collection/vault/1", label: "x", attributes: [:],
            collectionPath: "/org/freedesktop/secrets/collection/vault", collectionLabel: "Vault", isLocked: true)
        #expect {
            _ = try lookup.secrets(of: [locked])
        } throws: { error in
            guard case SecretServiceError.collectionLocked("Vault") = error else { return false }
            return String(describing: error).contains("is locked; unlock it")
        }
    }

    @Test func withoutASessionBusTheLookupSaysSo() {
        do {
            _ = try SecretServiceLookup(environment: ["HOME": "/nonexistent"])
            Issue.record("connected without a session bus")
        } catch {
            guard case .noSessionBus = error else {
                Issue.record("expected noSessionBus, got \(error)")
                return
            }
        }
    }
}
