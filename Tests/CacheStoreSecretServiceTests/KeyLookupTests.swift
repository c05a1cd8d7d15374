@testable import CacheStoreSecretService
import CacheStoreEncryption
import Foundation
import Testing

@Suite(
    "Secret Service data keys are found by the group's exact bytes",
    .enabled(if: keyringAvailable, "needs a D-Bus session with a keyring (scripts/test.sh starts one)"))
struct KeyLookupTests {
    @Test("a group holding NUL and a look-alike holding U+FFFD get distinct keys")
    func lookAlikeGroups() throws {
        let base = "look-alike-\(UUID().uuidString)"
        let source = SecretServiceKeySource()
        let withNUL = try source.createKey(for: base + "\u{0}x")
        let withReplacement = try source.createKey(for: base + "\u{FFFD}x")
        #expect(withNUL.id != withReplacement.id)
        #expect(try source.existingKey(for: base + "\u{0}x", id: nil)?.id == withNUL.id)
        #expect(try source.existingKey(for: base + "\u{FFFD}x", id: nil)?.id == withReplacement.id)
        #expect(try source.existingKey(for: base + "x", id: nil) == nil)
    }

    @Test("a key stored before the exact bytes were recorded is still found for a plain group")
    func legacyKeys() throws {
        let group = "legacy-\(UUID().uuidString)"
        let key = DataKey.generate()
        let connection = try SecretServiceConnection(collection: "default", unlock: .fail)
        try connection.store(
            label: "legacy key", attributes: [("xdg:schema", "org.tokencache.DataKey"), ("access-group", group), ("key-id", key.idHex), ("key-version", "1")],
            secret: Data(key.exportBase64().utf8), contentType: "text/plain")
        #expect(try SecretServiceKeySource().existingKey(for: group, id: key.id)?.id == key.id)
        #expect(try SecretServiceKeySource().existingKey(for: group + "\u{0}", id: nil) == nil)
    }
}
