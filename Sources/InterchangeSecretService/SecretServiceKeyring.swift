import CacheStoreSecretService
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheInterchange

/// The Secret Service as the interchange's read-only ``SDKKeyring``: lookups by attributes, and
/// the secrets of unlocked items; never a write, never an unlock.
public final class SecretServiceKeyring: SDKKeyring {
    private let lookup: SecretServiceLookup
    private var found: [String: SecretServiceItem] = [:]

    /// Connects to the Secret Service of the D-Bus session.
    ///
    /// - Throws: ``SecretServiceError`` when there is no session or no Secret Service.
    public init() throws {
        lookup = try SecretServiceLookup()
    }

    public func items(matching attributes: [SDKAttribute]) throws -> [SDKKeyringItem] {
        try lookup.search(attributes.map { ($0.name, $0.value) }).map { item in
            found[item.path] = item
            return SDKKeyringItem(id: item.path, label: item.label, collection: item.collectionLabel, isLocked: item.isLocked)
        }
    }

    public func secrets(of items: [SDKKeyringItem]) throws -> [String: Data] {
        try lookup.secrets(of: items.compactMap { found[$0.id] })
    }
}
