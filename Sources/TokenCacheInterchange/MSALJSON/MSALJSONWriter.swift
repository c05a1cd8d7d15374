import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// What an export wrote and left out.
public struct ExportReport: Sendable, Hashable {
    /// Entries (or items) written from the store.
    public var exported: Int
    /// Entries of the existing file kept because the store has no item for them.
    public var kept: Int
    /// Unknown top-level nodes of the existing file written back unchanged.
    public var keptUnknownNodes: Int
    /// Store items the format cannot hold, and why (no payload content, only attributes).
    public var skipped: [ImportIssue]

    public init(exported: Int = 0, kept: Int = 0, keptUnknownNodes: Int = 0, skipped: [ImportIssue] = []) {
        self.exported = exported
        self.kept = kept
        self.keptUnknownNodes = keptUnknownNodes
        self.skipped = skipped
    }
}

/// Writes store items as an MSAL unified JSON document in the form MSAL.NET writes: all five
/// sections, lower-cased keys, every scalar a string, both `extended_expires_on` and
/// `ext_expires_on`, no byte-order mark.
public enum MSALJSONWriter {
    /// The document for `items`, merged into `existing` (the file's current content) when given.
    ///
    /// Entries of `existing` that the items do not replace survive under their own keys, and so do
    /// its unknown top-level nodes (other SDKs' data), in their order after the five sections.
    ///
    /// - Throws: ``InterchangeError`` when `existing` is not an MSAL JSON document (it is not
    ///   overwritten then).
    public static func document(
        for items: [StoreItem], mergingInto existing: Data? = nil, source: String = "the existing file"
    ) throws(InterchangeError) -> (data: Data, report: ExportReport) {
        var report = ExportReport()
        var sections: [MSALSection: JSONObject] = [:]
        for section in MSALSection.allCases { sections[section] = JSONObject() }
        var fromFamilyModel = Set<String>()
        var written = Set<ItemIdentity>()

        for item in items {
            let reference = ItemReference(item).description
            let unified: UnifiedItem
            do {
                unified = try UnifiedItem(item)
            } catch {
                report.skipped.append(ImportIssue(path: reference, reason: "unreadable payload: \(error)"))
                continue
            }
            guard let (section, key, entry, converted) = entry(for: unified) else {
                report.skipped.append(ImportIssue(path: reference, reason: "\(kindName(unified)) has no MSAL JSON counterpart"))
                continue
            }
            if sections[section]![key] != nil {
                if converted {
                    report.skipped.append(ImportIssue(path: reference, reason: "the family refresh token already has an entry under \(quotedKey(key))"))
                    continue
                }
                if !fromFamilyModel.contains(key) {
                    report.skipped.append(ImportIssue(path: reference, reason: "another item has the same MSAL key \(quotedKey(key)); the later one is written"))
                    report.exported -= 1
                }
            }
            if converted { fromFamilyModel.insert(key) } else { fromFamilyModel.remove(key) }
            sections[section]![key] = .object(entry)
            if let itemKey = unified.key { written.insert(itemKey.identity(accessGroup: "")) }
            report.exported += 1
        }

        var unknownNodes: [(String, JSONValue)] = []
        if let existing, !existing.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            let value: JSONValue
            do {
                value = try JSONValue.parse(existing)
            } catch {
                throw .malformedJSON(source: source, error)
            }
            guard case .object(let document) = value else {
                throw .unrecognizedFormat(source: source, expected: "an MSAL JSON cache (its root is \(value.kindWithArticle)); it was left unchanged")
            }
            let reader = MSALEntryReader(accessGroup: "")
            for (name, node) in document {
                guard let section = MSALSection(name: name) else {
                    unknownNodes.append((name, node))
                    continue
                }
                guard case .object(let entries) = node else { continue }
                for (key, entry) in entries where sections[section]![key] == nil {
                    if case .items(let item, _, _)? = try? reader.read(entry, section: section), written.contains(item.identity) {
                        continue  // the store's item replaces it
                    }
                    if entry == .null { continue }
                    sections[section]![key] = entry
                    report.kept += 1
                }
            }
        }
        report.keptUnknownNodes = unknownNodes.count

        var root = JSONObject()
        for section in MSALSection.allCases { root[section.rawValue] = .object(sections[section]!) }
        for (name, node) in unknownNodes { root[name] = node }
        return (JSONValue.object(root).serialized(), report)
    }

    private static func kindName(_ item: UnifiedItem) -> String {
        switch item {
        case .credential(let credential): "a \(credential.credentialType) credential"
        case .account: "an account"
        case .appMetadata: "app metadata"
        case .accountMetadata: "account metadata"
        case .accountSignIn: "an account's sign-in state"
        case .other(let kind): "a non-unified item (\(kind))"
        }
    }

    /// The section, MSAL.NET key and payload of a unified item; `converted` marks a single-model
    /// family refresh token written as a family-keyed refresh token.
    static func entry(for item: UnifiedItem) -> (MSALSection, String, JSONObject, converted: Bool)? {
        switch item {
        case .credential(let credential):
            guard let (name, entry) = credential.msalEntry, let section = MSALSection(rawValue: name) else { return nil }
            let converted = credential.credentialType == .familyRefreshToken
            var keyed = credential
            if converted {
                keyed.credentialType = .refreshToken
                keyed.familyId = entry[Credential.Field.familyId]?.stringValue
            }
            let extended = credential.credentialType == .other
            return (section, MSALKeys.credential(keyed, extended: extended), sorted(entry), converted)
        case .account(let account):
            return (.account, MSALKeys.account(account), sorted(account.msalEntry), false)
        case .appMetadata(let metadata):
            return (.appMetadata, MSALKeys.appMetadata(metadata), sorted(metadata.msalEntry), false)
        case .accountMetadata, .accountSignIn, .other:
            return nil
        }
    }

    /// Entries are written with their members sorted, as MSAL.NET writes them.
    private static func sorted(_ object: JSONObject) -> JSONObject {
        JSONObject(object.sortedMembers.map { ($0.key, $0.value) })
    }
}

extension JSONValue {
    /// The kind with its article: `an object`, `a string`, …
    var kindWithArticle: String {
        switch self {
        case .object, .array: "an \(kindName)"
        default: "a \(kindName)"
        }
    }
}
