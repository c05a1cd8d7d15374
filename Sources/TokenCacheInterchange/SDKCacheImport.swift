import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

/// What importing SDK caches did.
public struct SDKImportReport: Sendable {
    /// Each cache read, with the number of entries it held (0: an empty cache).
    public var sources: [(location: SDKCacheLocation, entries: Int)]
    /// Items written (one per identity; a later source wins over an earlier one).
    public var imported: Int
    public var added: Int
    public var replaced: Int
    /// Entries not imported, each path prefixed with its source's selection.
    public var skipped: [ImportIssue]
    public var adjusted: [ImportIssue]

    /// Entries in all sources.
    public var entries: Int { sources.reduce(0) { $0 + $1.entries } }
}

/// The keyring of a found cache is locked: tokencache reads the keyring without unlocking it.
public struct SDKKeyringLockedError: Error, Sendable, CustomStringConvertible {
    public var collection: String
    public var sources: [String]

    public var description: String {
        "the keyring collection \(quotedKey(collection)) is locked, and it holds "
            + sources.joined(separator: ", ")
            + "; tokencache never unlocks the keyring or prompts when importing. Unlock it (log in to the desktop, "
            + "open your keyring manager such as Seahorse, or run `gnome-keyring-daemon --unlock` with the password "
            + "on stdin) and try again, or import the SDKs' plaintext files instead (file:LAYOUT). Nothing was imported"
    }
}

extension CacheInterchange {
    /// Reads every cache in `locations` and saves their items in one atomic batch.
    ///
    /// All caches are read and decoded before anything is written: a locked keyring
    /// (``SDKKeyringLockedError``, checked before any secret is read), an unreadable file or a
    /// cache that does not decode (``InterchangeError`` naming the location, never its content)
    /// leaves the store unchanged.
    public func importSDKCaches(_ locations: [SDKCacheLocation], keyring: (any SDKKeyring)?) throws -> SDKImportReport {
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
        var report = SDKImportReport(sources: [], imported: 0, added: 0, replaced: 0, skipped: [], adjusted: [])
        for location in locations {
            let raw: Data
            switch location.place {
            case .keyring(let item, _):
                raw = secrets[item.id] ?? Data()
            case .file(let file, _):
                guard let content = try PrivateFile.read(file.path, limit: ImportDecoder.sizeLimit) else {
                    throw InterchangeError.cannotRead(path: file.path, reason: "no such file (it was removed while importing)")
                }
                raw = content
            }
            let source = location.description
            guard let json = try location.encoding.msalJSON(from: raw, source: source) else {
                report.sources.append((location, 0))
                continue
            }
            let decoded = try ImportDecoder.decode(json, source: source, format: .msalJSON, accessGroup: accessGroup)
            for item in decoded.items { collector.add(item) }
            report.sources.append((location, decoded.entries))
            report.skipped += decoded.skipped.map { ImportIssue(path: "\(location.selection) \($0.path)", reason: $0.reason) }
            report.adjusted += decoded.adjusted.map { ImportIssue(path: "\(location.selection) \($0.path)", reason: $0.reason) }
        }
        let result = collector.items.isEmpty ? BatchResult() : try store.applyKeepingLookupKeys(collector.items.map(StoreOperation.save))
        report.imported = collector.items.count
        report.added = result.added
        report.replaced = result.replaced
        return report
    }
}
