@_spi(Hex) @_spi(Text) import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A 256-bit AES-GCM data key and its public identifier.
///
/// The key bytes live in a `SymmetricKey`, whose storage swift-crypto zeroes when it is released.
/// Nothing in this module prints or logs a key; ``description`` shows only the identifier.
public struct DataKey: Sendable, CustomStringConvertible {
    /// The key itself.
    public let key: SymmetricKey
    /// 16 bytes that name the key without revealing it: HMAC-SHA256(key, "tokencache data key id v1").
    ///
    /// Stores record it beside their sealed items so that a wrong key is reported as such instead of
    /// as a pile of authentication failures.
    public let id: Data

    /// Wraps existing key bytes (32 bytes for AES-256).
    public init(bytes: some ContiguousBytes) throws(EncryptionError) {
        let key = SymmetricKey(data: bytes)
        guard key.bitCount == 256 else { throw .malformedKey(reason: "a data key is 32 bytes, this one is \(key.bitCount / 8)") }
        self.init(key: key)
    }

    init(key: SymmetricKey) {
        self.key = key
        let mac = HMAC<SHA256>.authenticationCode(for: Data("tokencache data key id v1".utf8), using: key)
        self.id = Data(mac.prefix(16))
    }

    /// `value` blinded for an index kept beside sealed items: 16 bytes of HMAC-SHA256 under this key
    /// of a fixed label, a NUL and the value's UTF-8, in hex. Equal values give equal results, so
    /// the index can still be searched by exact match; without the key, the value cannot be read back.
    public func blindedIndexValue(_ value: String) -> String {
        var message = Data("tokencache index value v1".utf8)
        message.append(0)
        message.append(Data(value.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return lowercaseHex(mac.prefix(16))
    }

    /// A new random key from the system's secure random generator.
    public static func generate() -> DataKey {
        DataKey(key: SymmetricKey(size: .bits256))
    }

    /// The key bytes in standard Base64, for a key source to store. Handle the result as a secret.
    public func exportBase64() -> String {
        key.withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// Reads a key exported by ``exportBase64()``.
    public init(base64: String) throws(EncryptionError) {
        guard var bytes = Data(base64Encoded: base64.trimming(.whitespacesAndNewlines)) else {
            throw .malformedKey(reason: "the stored key is not Base64")
        }
        defer { bytes.resetBytes(in: 0..<bytes.count) }
        try self.init(bytes: bytes)
    }

    /// The identifier in hexadecimal, e.g. for `tokencache doctor`.
    public var idHex: String { lowercaseHex(id) }

    public var description: String { "DataKey(id: \(idHex))" }
}
