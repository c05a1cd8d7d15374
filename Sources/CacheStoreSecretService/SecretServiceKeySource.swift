@_spi(Hex) import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Data keys of the SQLite backend kept in the Secret Service: one keyring item per access group and
/// key, so an access group is also a cryptographic boundary.
///
/// Items carry `xdg:schema` = `org.tokencache.DataKey`, `access-group` (readable),
/// `access-group-bytes` (exact, hex; looked up by), `key-id` (the key's public
/// identifier, so two processes creating a key at once never replace each other's) and
/// `key-version`; the secret is the key in Base64, the label "tokencache data key for access group …".
public final class SecretServiceKeySource: DataKeySource {
    public let collection: String
    public let unlock: UnlockPolicy
    private let connection = StateLock<SecretServiceConnection?>(nil)

    public init(collection: String = "default", unlock: UnlockPolicy = .fail) {
        self.collection = collection
        self.unlock = unlock
    }

    public var kind: KeySourceKind { .secretService }
    public var description: String { "the Secret Service (collection '\(collection)')" }

    /// Connects now, so that an unreachable or locked keyring is reported before it is needed.
    public func connect() throws {
        try withConnection { _ throws(SecretServiceError) in () }
    }

    public func existingKey(for accessGroup: String, id: Data?) throws -> DataKey? {
        try withConnection { connection throws in
            var query = Self.attributes(accessGroup)
            if let id { query.append(("key-id", lowercaseHex(id))) }
            var paths = try connection.search(query)
            if paths.isEmpty, let legacy = Self.legacyAttributes(accessGroup) {
                paths = try connection.search(legacy + (id.map { [("key-id", lowercaseHex($0))] } ?? []))
            }
            // Of several keys for one group (two first openers at once), every process picks the same.
            guard let path = paths.min(), let secret = try connection.secrets([path])[path] else { return nil }
            return try DataKey(base64: String(decoding: secret, as: UTF8.self))
        }
    }

    public func createKey(for accessGroup: String) throws -> DataKey {
        if let key = try existingKey(for: accessGroup, id: nil) { return key }
        let key = DataKey.generate()
        try withConnection { connection throws(SecretServiceError) in
            try connection.store(
                label: "tokencache data key for access group \(SecretServiceStore.displayable(accessGroup))",
                attributes: Self.attributes(accessGroup) + [("key-id", key.idHex), ("key-version", "1")],
                secret: Data(key.exportBase64().utf8), contentType: "text/plain")
        }
        // Another process may have created one at the same moment: all of them settle on one.
        return try existingKey(for: accessGroup, id: nil) ?? key
    }

    @discardableResult
    private func withConnection<T, E: Error>(_ body: (SecretServiceConnection) throws(E) -> T) throws -> T {
        try connection.withLock { cached throws in
            if cached == nil { cached = try SecretServiceConnection(collection: collection, unlock: unlock) }
            return try body(cached!)
        }
    }

    /// The attributes that find a group's keys: `access-group-bytes`, the group's exact UTF-8 bytes
    /// in hex, so that look-alike groups (one holding NUL, shown as U+FFFD, and one holding U+FFFD)
    /// never share a key; `access-group` is its readable form, for keyring managers.
    static func attributes(_ group: String) -> [(String, String)] {
        [
            ("xdg:schema", "org.tokencache.DataKey"), ("access-group", SecretServiceStore.displayable(group)),
            ("access-group-bytes", lowercaseHex(Data(group.utf8))),
        ]
    }

    /// The attributes of keys stored before `access-group-bytes` existed, for groups whose readable
    /// form is exact (no NUL, no U+FFFD); nil for the others, which only the exact bytes may find.
    static func legacyAttributes(_ group: String) -> [(String, String)]? {
        guard !group.contains("\u{0}"), !group.contains("\u{FFFD}") else { return nil }
        return [("xdg:schema", "org.tokencache.DataKey"), ("access-group", group)]
    }
}
