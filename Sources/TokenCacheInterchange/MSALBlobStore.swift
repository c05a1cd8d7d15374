import CacheStore
import Foundation
import TokenCacheSchema

/// What storing a blob did.
public struct MSALBlobStoreReport: Sendable, Hashable {
    /// An entry, by section and MSAL key.
    public struct Entry: Sendable, Hashable {
        public var section: String
        public var key: String
    }

    /// The version of the blob just stored, for the next store of a blob derived from it.
    public var version: String
    /// Items written.
    public var saved: Int
    /// Items removed.
    public var removed: Int
    /// Entries changed by the caller and, differently, by another writer since the base version:
    /// the store's content was kept.
    public var conflicts: [Entry]
    /// Entries of the blob not stored, and why (outside the partition, no unified item, a top-level
    /// node other than the five sections).
    public var ignored: [ImportIssue]
}

/// The conflicts of a blob stored with `failOnConflict`: nothing was written.
public struct MSALBlobConflictError: Error, Sendable, CustomStringConvertible, CategorizedError {
    public var conflicts: [MSALBlobStoreReport.Entry]

    public var category: ErrorCategory { .conflict }

    public var description: String {
        "\(conflicts.count) entr\(conflicts.count == 1 ? "y was" : "ies were") changed by another writer since the blob was "
            + "loaded: " + conflicts.prefix(5).map { "\($0.section) \(quotedKey($0.key))" }.joined(separator: ", ")
            + (conflicts.count > 5 ? ", …" : "") + "; nothing was stored"
    }

    public var remedy: String? { "load the partition again, apply the change to it and store it again" }
}

/// The blob level of a store: a partition loaded as an MSAL JSON document with a version, and a
/// document stored back as a per-item merge against the version it was loaded at, so concurrent
/// writers never overwrite each other's items and no lock is held between load and store.
public struct MSALBlobStore: Sendable {
    public let store: any ItemStore
    /// Where stored items are written.
    public let accessGroup: String

    /// - Throws: ``CacheStoreError/accessGroupNotAllowed(_:allowed:)`` for a group the store lacks.
    public init(store: any ItemStore, accessGroup: String? = nil) throws {
        let group = accessGroup ?? store.accessGroups.primary
        try store.accessGroups.check(group)
        self.store = store
        self.accessGroup = group
    }

    /// The partition's entries as an MSAL JSON document (all five sections), and its version.
    public func load(_ partition: MSALPartition) throws -> (document: Data, version: String) {
        let (items, version) = Self.partitionItems(try store.allItems(), partition)
        let document = try MSALJSONWriter.document(for: items.map(\.item)).data
        return (document, version.text)
    }

    /// Stores `document` (an MSAL JSON document of `partition`) as a merge against `version`.
    ///
    /// Per item: unchanged by the caller since `version` → left as the store has it; changed, added
    /// or removed by the caller and unchanged in the store → written or removed; changed on both
    /// sides to different content → a conflict, the store's content kept (or, with
    /// `failOnConflict`, ``MSALBlobConflictError`` and nothing written). One atomic batch.
    ///
    /// - Parameter version: what ``load(_:)`` returned with the document the caller started from;
    ///   `nil` for none (every entry of `document` is then new to the caller).
    /// - Throws: ``InterchangeError`` for a malformed document or version (nothing written).
    public func store(
        _ document: Data, partition: MSALPartition, version: String?, failOnConflict: Bool = false
    ) throws -> MSALBlobStoreReport {
        let base = try version.map { (text) throws(InterchangeError) in try MSALBlobVersion(parsing: text) } ?? MSALBlobVersion()
        let decoded = try ImportDecoder.decode(document, source: "the blob", format: .msalJSON, accessGroup: accessGroup)
        var ignored = decoded.skipped
        if case .object(let root)? = try? JSONValue.parse(document) {
            for name in root.keys where MSALSection(name: name) == nil {
                ignored.append(ImportIssue(path: name, reason: "not one of the five MSAL JSON sections; not stored"))
            }
        }
        var mine: [UInt64: (item: StoreItem, digest: UInt64)] = [:]
        var mineVersion = MSALBlobVersion()
        for item in decoded.items {
            guard let (section, key, entry) = Self.entry(of: item) else { continue }
            guard partition.contains(entry, in: section) else {
                ignored.append(ImportIssue(path: "\(section.rawValue).\(quotedKey(key))", reason: "outside the partition; not stored"))
                continue
            }
            let hash = MSALBlobVersion.identityHash(item.identity)
            let digest = MSALBlobVersion.entryDigest(entry)
            mine[hash] = (item, digest)
            mineVersion.digests[hash] = digest
        }

        var conflicts: [MSALBlobStoreReport.Entry] = []
        var saved = 0
        var removed = 0
        try store.applyPlanned { _, allItems in
            conflicts = []
            saved = 0
            removed = 0
            let (currentItems, _) = Self.partitionItems(try allItems(), partition)
            var current: [UInt64: (item: StoreItem, digest: UInt64, section: MSALSection, key: String)] = [:]
            for entry in currentItems { current[MSALBlobVersion.identityHash(entry.item.identity)] = entry }
            var batch: [StoreOperation] = []
            for hash in Set(base.digests.keys).union(mine.keys).sorted() {
                let before = base.digests[hash]
                let mineDigest = mine[hash]?.digest
                let currentDigest = current[hash]?.digest
                if mineDigest == before || mineDigest == currentDigest { continue }
                guard currentDigest == before else {
                    if let (section, key, _) = mine[hash].flatMap({ Self.entry(of: $0.item) }) {
                        conflicts.append(.init(section: section.rawValue, key: key))
                    } else if let stored = current[hash] {
                        conflicts.append(.init(section: stored.section.rawValue, key: stored.key))
                    }
                    continue
                }
                if let item = mine[hash]?.item {
                    batch.append(.save(item))
                    saved += 1
                } else if let stored = current[hash] {
                    batch.append(.delete(stored.item.identity.query))
                    removed += 1
                }
            }
            if failOnConflict && !conflicts.isEmpty { return [] }
            return batch
        }
        if failOnConflict && !conflicts.isEmpty { throw MSALBlobConflictError(conflicts: conflicts) }
        return MSALBlobStoreReport(
            version: mineVersion.text, saved: saved, removed: removed, conflicts: conflicts, ignored: ignored)
    }

    /// The items of `partition` among `items` with their entries, and the version they make.
    private static func partitionItems(
        _ items: [StoreItem], _ partition: MSALPartition
    ) -> ([(item: StoreItem, digest: UInt64, section: MSALSection, key: String)], MSALBlobVersion) {
        var version = MSALBlobVersion()
        var selected: [(item: StoreItem, digest: UInt64, section: MSALSection, key: String)] = []
        for item in items {
            guard let (section, key, entry) = entry(of: item), partition.contains(entry, in: section) else { continue }
            let digest = MSALBlobVersion.entryDigest(entry)
            let hash = MSALBlobVersion.identityHash(item.identity)
            if version.digests[hash] != nil { continue }  // the same item in a second access group
            version.digests[hash] = digest
            selected.append((item, digest, section, key))
        }
        return (selected, version)
    }

    /// The MSAL JSON section, key and entry of a unified item; `nil` for items MSAL JSON cannot hold
    /// (tombstones included) and unreadable ones.
    private static func entry(of item: StoreItem) -> (MSALSection, String, JSONObject)? {
        guard let unified = try? UnifiedItem(item) else { return nil }
        if case .credential(let credential) = unified, credential.isTombstone { return nil }
        guard let (section, key, entry, _) = MSALJSONWriter.entry(for: unified) else { return nil }
        return (section, key, entry)
    }
}
