import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
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
    /// Entries of the blob not stored, and why (outside the partition, no unified item).
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

    /// The partition's entries as an MSAL JSON document (all five sections, then the unknown
    /// top-level nodes a blob stored for this partition brought), and its version.
    public func load(_ partition: MSALPartition) throws -> (document: Data, version: String) {
        let (parts, version) = Self.partitionItems(try store.allItems(), partition)
        var nodes = JSONObject()
        for part in parts where part.key.isEmpty {
            if let node = try? JSONValue.parse(part.item.data) { nodes[part.section] = node }
        }
        let units = parts.filter { !$0.key.isEmpty }.map(\.item)
        let document = try MSALJSONWriter.document(
            for: units, mergingInto: nodes.isEmpty ? nil : JSONValue.object(nodes).serialized()).data
        return (document, version.text)
    }

    /// Stores `document` (an MSAL JSON document of `partition`) as a merge against `version`.
    ///
    /// Per item: unchanged by the caller since `version` → left as the store has it; changed, added
    /// or removed by the caller and unchanged in the store → written or removed; changed on both
    /// sides to different content → a conflict, the store's content kept (or, with
    /// `failOnConflict`, ``MSALBlobConflictError`` and nothing written). One atomic batch. Top-level
    /// nodes other than the five sections (another SDK's data) are kept as one item per node and
    /// partition, merged the same way, and handed out again by ``load(_:)``.
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
        var items = decoded.items
        if case .object(let root)? = try? JSONValue.parse(document) {
            for (name, node) in root where MSALSection(name: name) == nil {
                items.append(Self.nodeItem(name, node, partition: partition, accessGroup: accessGroup))
            }
        }
        var mine: [UInt64: (item: StoreItem, digest: UInt64)] = [:]
        var mineVersion = MSALBlobVersion()
        for item in items {
            guard let part = Self.part(item, of: partition) else {
                if let (section, key, _) = Self.entry(of: item) {
                    ignored.append(ImportIssue(path: "\(section.rawValue).\(quotedKey(key))", reason: "outside the partition; not stored"))
                }
                continue
            }
            let hash = MSALBlobVersion.identityHash(item.identity)
            mine[hash] = (item, part.digest)
            mineVersion.digests[hash] = part.digest
        }

        var conflicts: [MSALBlobStoreReport.Entry] = []
        var saved = 0
        var removed = 0
        try store.applyPlanned { _, allItems in
            conflicts = []
            saved = 0
            removed = 0
            let everything = try allItems()
            let (currentParts, _) = Self.partitionItems(everything, partition)
            var current: [UInt64: Part] = [:]
            for part in currentParts { current[MSALBlobVersion.identityHash(part.item.identity)] = part }
            var batch: [StoreOperation] = []
            for hash in Set(base.digests.keys).union(mine.keys).sorted() {
                let before = base.digests[hash]
                let mineDigest = mine[hash]?.digest
                let currentDigest = current[hash]?.digest
                if mineDigest == before || mineDigest == currentDigest { continue }
                guard currentDigest == before else {
                    if let part = mine[hash].flatMap({ Self.part($0.item, of: partition) }) ?? current[hash] {
                        conflicts.append(.init(section: part.section, key: part.key))
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
            return LookupKey.appendingKeys(to: batch, over: everything, in: store)
        }
        if failOnConflict && !conflicts.isEmpty { throw MSALBlobConflictError(conflicts: conflicts) }
        return MSALBlobStoreReport(
            version: mineVersion.text, saved: saved, removed: removed, conflicts: conflicts, ignored: ignored)
    }

    /// One item of a partition: an MSAL JSON entry (section and key), or an unknown top-level node
    /// (its name as the section, an empty key), with the digest of its content.
    struct Part {
        let item: StoreItem
        let digest: UInt64
        let section: String
        let key: String
    }

    /// The generic attribute of the items that keep unknown top-level nodes of stored blobs.
    static let nodeGeneric = "tokencache.MSALJSONNode.1"

    /// The item keeping top-level node `name` of a blob of `partition`.
    static func nodeItem(_ name: String, _ node: JSONValue, partition: MSALPartition, accessGroup: String) -> StoreItem {
        StoreItem(
            accessGroup: accessGroup, account: "msal-json-node:" + partition.descriptor, service: name,
            generic: Data(nodeGeneric.utf8), type: nil, data: node.serialized(sortingKeys: true))
    }

    /// `item` as a part of `partition`, or `nil` when it is none.
    private static func part(_ item: StoreItem, of partition: MSALPartition) -> Part? {
        if item.type == nil, item.generic == Data(nodeGeneric.utf8) {
            guard item.account == "msal-json-node:" + partition.descriptor else { return nil }
            return Part(item: item, digest: MSALBlobVersion.digest(item.data), section: item.service, key: "")
        }
        guard let (section, key, entry) = entry(of: item), partition.contains(entry, in: section) else { return nil }
        return Part(item: item, digest: MSALBlobVersion.entryDigest(entry), section: section.rawValue, key: key)
    }

    /// The parts of `partition` among `items`, and the version they make.
    private static func partitionItems(_ items: [StoreItem], _ partition: MSALPartition) -> ([Part], MSALBlobVersion) {
        var version = MSALBlobVersion()
        var selected: [Part] = []
        for item in items {
            guard let part = part(item, of: partition) else { continue }
            let hash = MSALBlobVersion.identityHash(item.identity)
            if version.digests[hash] != nil { continue }  // the same item in a second access group
            version.digests[hash] = part.digest
            selected.append(part)
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
