import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The token caches of some SDK locations, read and decoded into store items, saved nowhere:
/// what `import sdk` saves and `dump sdk` shows.
public struct SDKCacheContent: Sendable {
    /// Each cache read, with the number of entries it held (0: an empty cache).
    public var sources: [(location: SDKCacheLocation, entries: Int)] = []
    /// The items, one per identity (a later source wins over an earlier one).
    public var items: [StoreItem] = []
    /// Entries that stand for no item, each path prefixed with its source's selection.
    public var skipped: [ImportIssue] = []
    /// Entries read with a change, each path prefixed with its source's selection.
    public var adjusted: [ImportIssue] = []

    /// Entries in all sources.
    public var entries: Int { sources.reduce(0) { $0 + $1.entries } }

    /// Reads and decodes every cache in `locations`, items going to `accessGroup`.
    ///
    /// A locked keyring (``SDKKeyringLockedError``, checked before any secret is read), an unreadable
    /// file or a cache that does not decode (``InterchangeError`` naming the location, never its
    /// content) fails the whole read.
    public static func read(_ locations: [SDKCacheLocation], keyring: (any SDKKeyring)?, accessGroup: String) throws -> SDKCacheContent {
        var keyringItems: [SDKKeyringItem] = []
        var locked: [String: [String]] = [:]
        for location in locations {
            guard case .keyring(let item, _) = location.place else { continue }
            keyringItems.append(item)
            if item.isLocked { locked[item.collection, default: []].append(location.description) }
        }
        if let first = locked.min(by: { $0.key < $1.key }) {
            throw SDKKeyringLockedError(collection: first.key, sources: first.value)
        }
        var secrets: [String: Data] = [:]
        if !keyringItems.isEmpty {
            guard let keyring else { preconditionFailure("keyring locations without a keyring") }
            secrets = try keyring.secrets(of: keyringItems)
        }

        var collector = Collector()
        var content = SDKCacheContent()
        for location in locations {
            let raw: Data
            switch location.place {
            case .keyring(let item, _):
                raw = secrets[item.id] ?? Data()
            case .file(let file, _):
                guard let data = try PrivateFile.read(file.path, limit: ImportDecoder.sizeLimit) else {
                    throw InterchangeError.cannotRead(path: file.path, reason: "no such file (it was removed while being read)")
                }
                raw = data
            }
            let source = location.description
            guard let json = try location.encoding.msalJSON(from: raw, source: source) else {
                content.sources.append((location, 0))
                continue
            }
            let decoded = try ImportDecoder.decode(json, source: source, format: .msalJSON, accessGroup: accessGroup)
            for item in decoded.items { collector.add(item) }
            content.sources.append((location, decoded.entries))
            content.skipped += decoded.skipped.map { ImportIssue(path: "\(location.selection) \($0.path)", reason: $0.reason) }
            content.adjusted += decoded.adjusted.map { ImportIssue(path: "\(location.selection) \($0.path)", reason: $0.reason) }
        }
        content.items = collector.items
        return content
    }
}
