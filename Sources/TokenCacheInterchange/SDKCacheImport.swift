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

extension CacheInterchange {
    /// Reads every cache in `locations` and saves their items in one atomic batch.
    ///
    /// All caches are read and decoded before anything is written: a locked keyring
    /// (``SDKKeyringLockedError``, checked before any secret is read), an unreadable file or a
    /// cache that does not decode (``InterchangeError`` naming the location, never its content)
    /// leaves the store unchanged.
    public func importSDKCaches(_ locations: [SDKCacheLocation], keyring: (any SDKKeyring)?) throws -> SDKImportReport {
        let content = try SDKCacheContent.read(locations, keyring: keyring, accessGroup: accessGroup)
        let result = content.items.isEmpty ? BatchResult() : try store.applyKeepingLookupKeys(content.items.map(StoreOperation.save))
        return SDKImportReport(
            sources: content.sources, imported: content.items.count, added: result.added, replaced: result.replaced,
            skipped: content.skipped, adjusted: content.adjusted)
    }
}
