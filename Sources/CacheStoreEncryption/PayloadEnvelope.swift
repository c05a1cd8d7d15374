import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sealed form of one item's payload: a versioned AES-GCM envelope bound to the item's identity.
///
/// Layout, version 1:
///
/// | bytes | content |
/// |---|---|
/// | 1 | envelope version, `0x01` |
/// | 8 | the first 8 bytes of the data key's ``DataKey/id`` |
/// | 12 | random nonce |
/// | n | AES-256-GCM ciphertext of the payload |
/// | 16 | GCM tag |
///
/// The associated data is the item's identity (access group, account, service, type) in an
/// unambiguous length-prefixed encoding, so a sealed payload moved to another row, another account
/// or another access group fails authentication instead of being read as someone else's token.
/// A later scheme takes a new version byte; readers refuse versions they do not know.
public enum PayloadEnvelope {
    /// The version this code writes.
    public static let currentVersion: UInt8 = 1
    static let headerSize = 1 + 8
    static let overhead = headerSize + 12 + 16

    /// Seals `payload` for the item with `identity`.
    public static func seal(_ payload: Data, identity: ItemIdentity, key: DataKey) throws(EncryptionError) -> Data {
        do {
            let box = try AES.GCM.seal(payload, using: key.key, authenticating: associatedData(identity))
            guard let combined = box.combined else { throw EncryptionError.malformedKey(reason: "AES-GCM produced no combined form") }
            var envelope = Data([currentVersion])
            envelope.reserveCapacity(overhead + payload.count)
            envelope.append(key.id.prefix(8))
            envelope.append(combined)
            return envelope
        } catch let error as EncryptionError {
            throw error
        } catch {
            throw .sealFailed(reason: String(describing: type(of: error)))
        }
    }

    /// Opens an envelope sealed for `identity`; throws rather than return anything but the original bytes.
    public static func open(_ envelope: Data, identity: ItemIdentity, key: DataKey) throws(EncryptionError) -> Data {
        guard let version = envelope.first else { throw .malformedEnvelope(identity, reason: "it is empty") }
        guard version == currentVersion else { throw .unsupportedEnvelope(identity, version: version) }
        guard envelope.count >= overhead else {
            throw .malformedEnvelope(identity, reason: "it is \(envelope.count) bytes, shorter than the \(overhead)-byte envelope")
        }
        let start = envelope.startIndex
        let keyPrefix = envelope[(start + 1)..<(start + headerSize)]
        guard keyPrefix.elementsEqual(key.id.prefix(8)) else { throw .sealedWithAnotherKey(identity) }
        do {
            let box = try AES.GCM.SealedBox(combined: envelope[(start + headerSize)...])
            return try AES.GCM.open(box, using: key.key, authenticating: associatedData(identity))
        } catch {
            throw .authenticationFailed(identity)
        }
    }

    /// The key-id prefix recorded in an envelope, if it is one this code can read.
    public static func keyIDPrefix(of envelope: Data) -> Data? {
        guard envelope.count >= overhead, envelope.first == currentVersion else { return nil }
        let start = envelope.startIndex
        return Data(envelope[(start + 1)..<(start + headerSize)])
    }

    /// `"tokencache item v1"`, then each identity string as a 4-byte big-endian length and its
    /// UTF-8 bytes, then the type: `0x00` when absent, or `0x01` and 4 bytes big-endian.
    static func associatedData(_ identity: ItemIdentity) -> [UInt8] {
        // Sized once and written in place (every seal and open builds one, and a whole encrypted
        // store is opened item by item); an array, as `Data`'s appends cost more than the writing.
        var parts = [identity.accessGroup, identity.account, identity.service]
        let size = adPrefix.count + parts.reduce(0) { $0 + 4 + $1.utf8.count } + (identity.type == nil ? 1 : 5)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            func append(_ bytes: UnsafeBufferPointer<UInt8>) {
                _ = UnsafeMutableBufferPointer(rebasing: buffer[count..<(count + bytes.count)]).initialize(from: bytes)
                count += bytes.count
            }
            func append(bigEndian value: UInt32) {
                withUnsafeBytes(of: value.bigEndian) { append($0.bindMemory(to: UInt8.self)) }
            }
            adPrefix.withUnsafeBufferPointer { append($0) }
            for index in parts.indices {
                append(bigEndian: UInt32(parts[index].utf8.count))
                parts[index].withUTF8 { append($0) }
            }
            if let type = identity.type {
                buffer[count] = 1
                count += 1
                append(bigEndian: type)
            } else {
                buffer[count] = 0
                count += 1
            }
        }
    }

    private static let adPrefix = Array("tokencache item v1".utf8)
}
