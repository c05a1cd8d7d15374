import CacheStore

/// Why a payload could not be sealed or opened, or a key not found. Never carries key bytes or
/// payloads; item identities (access group, account, service) are not secrets and are named so the
/// user knows which item is affected.
public enum EncryptionError: Error, Sendable, CustomStringConvertible {
    /// The store holds items of `accessGroup` sealed with a key that no configured source has.
    case keyUnavailable(accessGroup: String, keyID: String, keptIn: String, searched: [String], storePath: String)
    /// The store was opened without encryption, but the group's items are sealed.
    case storeOpenedWithoutKey(accessGroup: String, storePath: String)
    /// The payload was sealed with a key other than the one the store uses for its group.
    case sealedWithAnotherKey(ItemIdentity)
    /// The payload failed AES-GCM authentication: changed on disk, or moved from another item.
    case authenticationFailed(ItemIdentity)
    /// The envelope has a version this tokencache does not know.
    case unsupportedEnvelope(ItemIdentity, version: UInt8)
    /// The envelope is too short or otherwise not an envelope.
    case malformedEnvelope(ItemIdentity, reason: String)
    /// A stored key could not be read.
    case malformedKey(reason: String)
    /// Sealing failed inside the cryptography library.
    case sealFailed(reason: String)
    /// The key file could not be created, read or written.
    case keyFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .keyUnavailable(let group, let keyID, let keptIn, let searched, let path):
            let hint = keptIn == KeySourceKind.secretService.rawValue
                ? "it was kept in the Secret Service: run inside the desktop session (or D-Bus session) whose keyring holds it, unlocked"
                : "it was kept in the key file \(path).key: restore that file beside the store"
            return "the items of access group '\(group)' in \(path) are sealed with data key \(keyID), which is not in "
                + "\(searched.isEmpty ? "any key source" : searched.joined(separator: " or ")); \(hint). "
                + "The sealed payloads stay on disk unchanged; attributes remain readable"
        case .storeOpenedWithoutKey(let group, let path):
            return "the items of access group '\(group)' in \(path) are sealed; open the store with its data key "
                + "(the tokencache CLI and StoreOpener do), not as a plain SQLite store"
        case .sealedWithAnotherKey(let identity):
            return "the payload of \(Self.name(identity)) was sealed with another data key than the one in use here: "
                + "the key this process was given does not match the key its writers used (check the key file, "
                + "environment variable or keyring the store's key comes from), or the item was copied in from another store"
        case .authenticationFailed(let identity):
            return "the payload of \(Self.name(identity)) fails authentication: it was changed on disk or moved from "
                + "another item; it cannot be read, and the rest of the store is unaffected"
        case .unsupportedEnvelope(let identity, let version):
            return "the payload of \(Self.name(identity)) is sealed with envelope version \(version), which this "
                + "tokencache does not know; upgrade tokencache"
        case .malformedEnvelope(let identity, let reason):
            return "the payload of \(Self.name(identity)) is not a valid sealed envelope: \(reason)"
        case .malformedKey(let reason):
            return "a stored data key is unusable: \(reason)"
        case .sealFailed(let reason):
            return "sealing a payload failed (\(reason))"
        case .keyFile(let path, let reason):
            return "key file \(path): \(reason)"
        }
    }

    static func name(_ identity: ItemIdentity) -> String {
        "item (group '\(identity.accessGroup)', account '\(identity.account)', service '\(identity.service)')"
    }
}

extension EncryptionError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .authenticationFailed, .sealedWithAnotherKey, .unsupportedEnvelope, .malformedEnvelope: .damaged
        case .keyUnavailable, .storeOpenedWithoutKey, .malformedKey, .keyFile: .unavailable
        case .sealFailed: .internal
        }
    }
}
