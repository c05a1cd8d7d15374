import CacheStore
import CacheStoreEncryption
import Crypto
import Foundation
import TestSupport
import Testing

@Suite("Payload envelopes")
struct PayloadEnvelopeTests {
    let identity = ItemIdentity(accessGroup: "g", account: "uid.utid-login.windows.net", service: "refreshtoken-c--", type: 2002)
    let payload = Data(#"{"secret":"RT-SECRET-VALUE"}"#.utf8)

    @Test func sealsAndOpensWithoutRevealingThePayload() throws {
        let key = DataKey.generate()
        let sealed = try PayloadEnvelope.seal(payload, identity: identity, key: key)
        #expect(sealed.first == PayloadEnvelope.currentVersion)
        #expect(sealed.count == payload.count + 37)
        #expect(sealed.range(of: Data("RT-SECRET-VALUE".utf8)) == nil)
        #expect(try PayloadEnvelope.open(sealed, identity: identity, key: key) == payload)
        #expect(try PayloadEnvelope.seal(payload, identity: identity, key: key) != sealed, "a fresh nonce each time")
        #expect(try PayloadEnvelope.open(try PayloadEnvelope.seal(Data(), identity: identity, key: key), identity: identity, key: key) == Data())
    }

    /// An envelope built by hand from the documented layout (version, key id prefix, nonce,
    /// ciphertext, tag; the identity authenticated as "tokencache item v1", each of group, account
    /// and service as a 4-byte big-endian length and its UTF-8 bytes, then 1 and the type, or 0)
    /// opens: stores sealed by any earlier build keep opening.
    @Test(arguments: [UInt32?.some(2002), nil])
    func theAuthenticatedIdentityKeepsItsLayout(type: UInt32?) throws {
        let key = try DataKey(bytes: Data((0..<32).map { UInt8($0) }))
        var identity = ItemIdentity(accessGroup: "com.microsoft.adalcache", account: "uid.utid-login.windows.net", service: "é-service", type: type)
        var expected = Array("tokencache item v1".utf8)
        for part in [identity.accessGroup, identity.account, identity.service] {
            let bytes = Array(part.utf8)
            expected += [UInt8(bytes.count >> 24), UInt8((bytes.count >> 16) & 0xFF), UInt8((bytes.count >> 8) & 0xFF), UInt8(bytes.count & 0xFF)]
            expected += bytes
        }
        if let type {
            expected += [1, UInt8(type >> 24), UInt8((type >> 16) & 0xFF), UInt8((type >> 8) & 0xFF), UInt8(type & 0xFF)]
        } else {
            expected += [0]
        }
        let box = try AES.GCM.seal(payload, using: key.key, nonce: try AES.GCM.Nonce(data: Data(repeating: 7, count: 12)), authenticating: expected)
        let envelope = Data([PayloadEnvelope.currentVersion]) + key.id.prefix(8) + box.combined!
        #expect(try PayloadEnvelope.open(envelope, identity: identity, key: key) == payload)
        identity.service = "e-service"
        #expect(throws: EncryptionError.self) { try PayloadEnvelope.open(envelope, identity: identity, key: key) }
    }

    @Test func theIdentityIsAuthenticated() throws {
        let key = DataKey.generate()
        let sealed = try PayloadEnvelope.seal(payload, identity: identity, key: key)
        var others = [identity, identity, identity, identity, identity]
        others[0].accessGroup = "other"
        others[1].account = "someone-else"
        others[2].service = "accesstoken-c-t-s"
        others[3].type = nil
        others[4].type = 2001
        for other in others {
            #expect {
                _ = try PayloadEnvelope.open(sealed, identity: other, key: key)
            } throws: { error in
                guard case EncryptionError.authenticationFailed = error else { return false }
                let text = String(describing: error)
                return text.contains("fails authentication") && !text.contains("RT-SECRET")
            }
        }
    }

    /// Two Redis instances given different keys meet this error: it says the key does not match.
    @Test func anotherKeySaysTheKeyDoesNotMatch() {
        let text = EncryptionError.sealedWithAnotherKey(identity).description
        #expect(text.contains("does not match") && text.contains("key"))
    }

    @Test func tamperingWrongKeysAndUnknownVersionsAreClearErrors() throws {
        let key = DataKey.generate()
        var sealed = try PayloadEnvelope.seal(payload, identity: identity, key: key)
        #expect(throws: EncryptionError.self) { _ = try PayloadEnvelope.open(sealed, identity: identity, key: DataKey.generate()) }
        do {
            _ = try PayloadEnvelope.open(sealed, identity: identity, key: DataKey.generate())
        } catch EncryptionError.sealedWithAnotherKey {
        } catch { Issue.record("unexpected \(error)") }
        sealed[sealed.count - 20] ^= 0x01
        #expect(throws: EncryptionError.self) { _ = try PayloadEnvelope.open(sealed, identity: identity, key: key) }
        sealed[0] = 9
        do {
            _ = try PayloadEnvelope.open(sealed, identity: identity, key: key)
            Issue.record("opened an unknown version")
        } catch EncryptionError.unsupportedEnvelope(_, let version) {
            #expect(version == 9)
        }
        do {
            _ = try PayloadEnvelope.open(Data([1, 2, 3]), identity: identity, key: key)
            Issue.record("opened garbage")
        } catch EncryptionError.malformedEnvelope {}
    }

    @Test func keysRoundTripThroughBase64AndHaveStableIds() throws {
        let key = DataKey.generate()
        let copy = try DataKey(base64: key.exportBase64())
        #expect(copy.id == key.id)
        #expect(key.id.count == 16)
        #expect(!key.description.contains(key.exportBase64()))
        #expect(throws: EncryptionError.self) { _ = try DataKey(bytes: Data(count: 16)) }
    }
}

@Suite("Key file")
struct KeyFileTests {
    final class Notices: @unchecked Sendable {
        let lock = NSLock()
        var messages: [String] = []
        func add(_ message: String) { lock.withLock { messages.append(message) } }
    }

    @Test func createdPrivateWithOneNoticeAndOneKeyPerGroup() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Private whatever the umask: 0o022 lets a plain creation through at 0644. Not umask(0),
        // which would make other tests' files world-writable while this one runs.
        let previous = umask(0o022)
        defer { umask(previous) }
        let notices = Notices()
        let file = KeyFile(path: directory.path("cache.sqlite.key"), notice: { notices.add($0) })
        #expect(try file.existingKey(for: "a", id: nil) == nil)
        let a = try file.createKey(for: "a")
        let b = try file.createKey(for: "b")
        #expect(a.id != b.id, "each access group has its own key")
        #expect(try file.createKey(for: "a").id == a.id, "creating again returns the existing key")
        #expect(try file.existingKey(for: "a", id: a.id)?.id == a.id)
        #expect(try file.existingKey(for: "a", id: b.id) == nil)
        #expect(try posixMode(file.path) == 0o600)
        #expect(notices.messages.count == 1)
        #expect(notices.messages[0].contains(file.path))
        #expect(notices.messages[0].contains("not from programs running as you"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["cache.sqlite.key"], "no temporary files left")
    }

    @Test func aKeyFileOthersCanReadIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = KeyFile(path: directory.path("k.key"))
        _ = try file.createKey(for: "a")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect {
            _ = try file.existingKey(for: "a", id: nil)
        } throws: { error in
            String(describing: error).contains("chmod 600")
        }
    }

    @Test func aForeignFileIsRefusedAndLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("k.key")
        let content = Data("not keys".utf8)
        _ = FileManager.default.createFile(atPath: path, contents: content, attributes: [.posixPermissions: 0o600])
        #expect(throws: EncryptionError.self) { _ = try KeyFile(path: path).createKey(for: "a") }
        #expect(FileManager.default.contents(atPath: path) == content)
    }
}
