import CLibsecret
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keyring item found by ``SecretServiceLookup``: where it is and what it carries, without its secret.
public struct SecretServiceItem: Sendable, Hashable {
    /// The item's D-Bus object path, e.g. `/org/freedesktop/secrets/collection/login/3`.
    public var path: String
    /// The item's label (empty when its writer gave none).
    public var label: String
    /// All of the item's attributes, `xdg:schema` included when its writer stored one.
    public var attributes: [String: String]
    /// The D-Bus object path of the collection holding the item.
    public var collectionPath: String
    /// The collection's label (e.g. `Login`), else the last component of its path.
    public var collectionLabel: String
    /// Whether the item (its collection) is locked: its secret cannot be read without unlocking it.
    public var isLocked: Bool

    /// The schema name its writer stored (`xdg:schema`), if any.
    public var schema: String? { attributes["xdg:schema"] }

    public init(path: String, label: String, attributes: [String: String], collectionPath: String, collectionLabel: String, isLocked: Bool) {
        self.path = path
        self.label = label
        self.attributes = attributes
        self.collectionPath = collectionPath
        self.collectionLabel = collectionLabel
        self.isLocked = isLocked
    }
}

/// Read-only lookups in the Secret Service: items of any collection found by attributes (a schema
/// name is the attribute `xdg:schema`), and the secrets of unlocked ones. Knows nothing of tokens.
///
/// It never creates, changes or deletes an item and never unlocks anything: a search lists locked
/// items without their secrets, and asking for the secret of a locked item is
/// ``SecretServiceError/collectionLocked(_:)``, never a prompt. Not thread-safe; use it from one
/// thread at a time.
public final class SecretServiceLookup {
    private let service: OpaquePointer  // SecretService *
    private var collectionLabels: [String: String] = [:]

    /// Connects to the Secret Service on the session bus.
    ///
    /// - Throws: ``SecretServiceError/libraryUnavailable(library:reason:)``, ``SecretServiceError/noSessionBus``, ``SecretServiceError/sessionBusUnreachable(address:message:)``
    ///   or ``SecretServiceError/serviceUnavailable(message:)``.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(SecretServiceError) {
        try SecretServiceLibrary.load()
        guard let address = SessionBus.address(environment: environment) else { throw .noSessionBus }
        var error: UnsafeMutablePointer<GError>?
        guard let service = tc_service_get(&error) else {
            throw SecretServiceConnection.connectFailure(error, address: address)
        }
        self.service = service
    }

    deinit {
        tc_object_unref(UnsafeMutableRawPointer(service))
    }

    /// The items, in every collection, whose attributes include all of `attributes` (they may carry
    /// more), sorted by path. Locked items are listed too, with ``SecretServiceItem/isLocked`` set.
    public func search(_ attributes: [(String, String)]) throws(SecretServiceError) -> [SecretServiceItem] {
        var error: UnsafeMutablePointer<GError>?
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let unlocked = withCStrings(attributes.map(\.0)) { keys in
            withCStrings(attributes.map(\.1)) { values in
                tc_service_search(service, keys, values, Int32(attributes.count), &locked, &error)
            }
        }
        guard let unlocked else { throw SecretServiceConnection.failure(error, operation: "search items", collection: "any") }
        defer {
            tc_strfreev(unlocked)
            tc_strfreev(locked)
        }
        var found: [SecretServiceItem] = []
        for (list, isLocked) in [(Optional(unlocked), false), (locked, true)] {
            guard let list else { continue }
            var index = 0
            while let entry = list[index] {
                found.append(try item(at: String(cString: entry), listedLocked: isLocked))
                index += 1
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The secrets of `items`, read in one call, by item path.
    ///
    /// - Throws: ``SecretServiceError/collectionLocked(_:)`` (naming the collection) when any of them
    ///   is locked; nothing is unlocked and no prompt is shown.
    public func secrets(of items: [SecretServiceItem]) throws(SecretServiceError) -> [String: Data] {
        if let locked = items.first(where: \.isLocked) { throw .collectionLocked(locked.collectionLabel) }
        let paths = Array(Set(items.map(\.path))).sorted()
        return try SecretServiceConnection.secrets(of: paths, from: service, collection: items.first?.collectionLabel ?? "any")
    }

    // MARK: - Item properties

    private func item(at path: String, listedLocked: Bool) throws(SecretServiceError) -> SecretServiceItem {
        let collectionPath = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let collectionLabel = try label(ofCollection: collectionPath)
        var error: UnsafeMutablePointer<GError>?
        guard let item = tc_item(service, path, &error) else {
            throw SecretServiceConnection.failure(error, operation: "read item properties", collection: collectionLabel)
        }
        defer { tc_object_unref(UnsafeMutableRawPointer(item)) }
        var label = ""
        if let raw = tc_item_label(item) {
            label = String(cString: raw)
            tc_free(raw)
        }
        var keys: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = Int(tc_item_attributes(item, &keys, &values))
        defer {
            tc_strfreev(keys)
            tc_strfreev(values)
        }
        var attributes: [String: String] = [:]
        if let keys, let values {
            for index in 0..<count {
                guard let key = keys[index], let value = values[index] else { continue }
                attributes[String(cString: key)] = String(cString: value)
            }
        }
        return SecretServiceItem(
            path: path, label: label, attributes: attributes, collectionPath: collectionPath,
            collectionLabel: collectionLabel, isLocked: listedLocked || tc_item_locked(item) != 0)
    }

    private func label(ofCollection path: String) throws(SecretServiceError) -> String {
        if let known = collectionLabels[path] { return known }
        let fallback = path.split(separator: "/").last.map(String.init) ?? path
        var error: UnsafeMutablePointer<GError>?
        guard let collection = tc_collection(service, path, &error) else {
            throw SecretServiceConnection.failure(error, operation: "read collection properties", collection: fallback)
        }
        defer { tc_object_unref(UnsafeMutableRawPointer(collection)) }
        var label = fallback
        if let raw = tc_collection_label(collection) {
            let text = String(cString: raw)
            tc_free(raw)
            if !text.isEmpty { label = text }
        }
        collectionLabels[path] = label
        return label
    }
}
