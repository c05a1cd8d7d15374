#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a store's data keys live: the Secret Service, or a key file beside the store.
///
/// A source keeps at most one key per access group, so that an access group is also a
/// cryptographic boundary: a process that may read one group's key learns nothing of another's.
/// Implementations never log key bytes.
public protocol DataKeySource: Sendable, CustomStringConvertible {
    /// A short name for messages and `tokencache doctor`: `secret-service` or `file`.
    var kind: KeySourceKind { get }

    /// The group's key, or `nil` when this source has none for it.
    ///
    /// - Parameter id: when given, only the key with this ``DataKey/id`` will do (a store asks for the
    ///   key it recorded); when `nil`, any key the source keeps for the group.
    func existingKey(for accessGroup: String, id: Data?) throws -> DataKey?

    /// Stores a new random key for the group and returns it. When the source already holds one
    /// (e.g. another process was quicker), returns that one instead.
    func createKey(for accessGroup: String) throws -> DataKey
}

/// The kinds of key source.
public enum KeySourceKind: String, Sendable, Hashable, CaseIterable {
    /// A key item in the Secret Service (the login keyring, unlocked when the user logs in).
    case secretService = "secret-service"
    /// A 0600 key file beside the store.
    case file
}
