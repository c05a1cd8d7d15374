import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

/// What an import did.
public struct ImportReport: Sendable {
    /// The format the file was read as.
    public var format: ImportFormat
    /// Entries in the file.
    public var entries: Int
    /// Items written (one per identity).
    public var imported: Int
    /// Of those, items that were new to the store.
    public var added: Int
    /// Of those, items that replaced one with the same identity.
    public var replaced: Int
    /// Entries not imported, and why.
    public var skipped: [ImportIssue]
    /// Entries imported with a change, and which.
    public var adjusted: [ImportIssue]
}

/// Imports files into a store and exports the store to files.
///
/// An import is one atomic batch: a file that cannot be read in full changes nothing. Unified
/// items go to ``accessGroup``; keychain items keep their own groups (each must be one the store
/// was opened for).
public struct CacheInterchange: Sendable {
    public let store: any ItemStore
    /// Where imported unified items are written.
    public let accessGroup: String

    /// - Throws: ``CacheStoreError/accessGroupNotAllowed(_:allowed:)`` when `accessGroup` is not
    ///   one of the store's groups.
    public init(store: any ItemStore, accessGroup: String? = nil) throws {
        let group = accessGroup ?? store.accessGroups.primary
        try store.accessGroups.check(group)
        self.store = store
        self.accessGroup = group
    }

    // MARK: - Import

    /// Imports `data` (see ``ImportDecoder/decode(_:source:format:accessGroup:progress:)``), then
    /// saves every item in one batch.
    ///
    /// - Parameter beforeWrite: called with the number of items just before the batch is applied.
    /// - Throws: ``InterchangeError`` for the content; the store's errors for the write. Either way
    ///   the store is unchanged.
    public func importData(
        _ data: Data,
        source: String,
        format: ImportFormat? = nil,
        progress: ((Int, Int) -> Void)? = nil,
        beforeWrite: ((Int) -> Void)? = nil
    ) throws -> ImportReport {
        let decoded = try ImportDecoder.decode(data, source: source, format: format, accessGroup: accessGroup, progress: progress)
        beforeWrite?(decoded.items.count)
        let replaced = try signInsReplaced(by: decoded.items)
        let result = decoded.items.isEmpty ? BatchResult() : try store.applyKeepingLookupKeys(replaced + decoded.items.map(StoreOperation.save))
        // An imported 5001 item's entries go to their accounts' partitions, as the engine files them.
        if decoded.items.contains(where: { $0.type == ItemTypeCode.accountMetadata }) { try store.fileAccountMetadata() }
        return ImportReport(
            format: decoded.format, entries: decoded.entries, imported: decoded.items.count,
            added: result.added, replaced: result.replaced, skipped: decoded.skipped, adjusted: decoded.adjusted)
    }

    /// Imports the file at `path`; see ``importData(_:source:format:progress:beforeWrite:)``.
    public func importFile(
        atPath path: String,
        format: ImportFormat? = nil,
        progress: ((Int, Int) -> Void)? = nil,
        beforeWrite: ((Int) -> Void)? = nil
    ) throws -> ImportReport {
        guard let data = try PrivateFile.read(path, limit: ImportDecoder.sizeLimit) else {
            throw InterchangeError.cannotRead(path: path, reason: "no such file")
        }
        return try importData(data, source: path, format: format, progress: progress, beforeWrite: beforeWrite)
    }

    // MARK: - Export

    /// The store's content in `format`.
    ///
    /// - Parameters:
    ///   - existing: for ``ExportFormat/msalJSON``, the current content of the file being written,
    ///     to merge into (see ``MSALJSONWriter/document(for:mergingInto:source:)``); ignored for
    ///     keychain items, which are always written whole.
    public func export(_ format: ExportFormat, mergingInto existing: Data? = nil, source: String = "the existing file") throws -> (data: Data, report: ExportReport) {
        let items = try store.allItems()
        switch format {
        case .msalJSON:
            return try MSALJSONWriter.document(for: items, mergingInto: existing, source: source)
        case .keychainItems:
            let exported = Self.foldingAccountMetadata(items)
            return (KeychainItemsFormat.encode(exported), ExportReport(exported: exported.count))
        case .adalV3:
            let (entries, skipped) = ADALExport.entries(for: items)
            return (ADALNetV3Blob.write(entries), ExportReport(exported: entries.count, skipped: skipped))
        }
    }

    /// Exports to the file at `path`, merging into it when it holds an MSAL JSON cache, and
    /// replacing it atomically with a file of mode 0600.
    public func export(_ format: ExportFormat, toFile path: String) throws -> ExportReport {
        let existing = format == .msalJSON ? try PrivateFile.read(path, limit: ImportDecoder.sizeLimit) : nil
        let (data, report) = try export(format, mergingInto: existing, source: path)
        try PrivateFile.write(data, to: path)
        return report
    }
}
