import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// Something the importer noticed about one entry: where it is and what it did about it.
public struct ImportIssue: Sendable, Hashable, CustomStringConvertible {
    /// Where the entry is, e.g. `AccessToken 'uid.utid-login.windows.net-accesstoken-…'`.
    public var path: String
    /// What happened, e.g. `no 'secret': not a token`.
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// A decoded import file: the items to save, and what was skipped or adjusted on the way.
public struct DecodedImport: Sendable {
    /// The format the content was read as.
    public var format: ImportFormat
    /// The items to save, one per identity (a later entry with the same identity wins, as in MSAL.NET).
    public var items: [StoreItem]
    /// How many entries the file holds (items of a keychain-items file).
    public var entries: Int
    /// Entries that stand for no unified item (no secret, say); they are not imported.
    public var skipped: [ImportIssue]
    /// Entries imported with a change (an unknown `authority_type` stored as MSSTS, say).
    public var adjusted: [ImportIssue]
}

/// Reads import files into store items, without touching a store.
public enum ImportDecoder {
    /// The largest input accepted: 256 MiB.
    public static let sizeLimit = 256 << 20

    /// Decodes `data`.
    ///
    /// - Parameters:
    ///   - source: names the input in errors (a path, `stdin`).
    ///   - format: the format to read; `nil` detects it from the content.
    ///   - accessGroup: where the unified items go (keychain items keep their own groups).
    ///   - progress: called now and then with (entries done, entries in all).
    /// - Throws: ``InterchangeError`` naming the source and the position, section, entry or field.
    ///   Nothing is returned for a malformed file: it is all or nothing.
    public static func decode(
        _ data: Data,
        source: String,
        format: ImportFormat? = nil,
        accessGroup: String,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(InterchangeError) -> DecodedImport {
        guard data.count <= sizeLimit else { throw .tooLarge(source: source, size: data.count, limit: sizeLimit) }
        switch format ?? ImportFormat.detectBinary(data) {
        case .adalV3?: return try ADALImport.decodeADALNetV3(data, source: source, accessGroup: accessGroup, progress: progress)
        case .adalMacOS?: return try ADALImport.decodeADALMacOS(data, source: source, accessGroup: accessGroup, progress: progress)
        case .adalKeychainItem?: return try ADALImport.decodeADALKeychainItem(data, source: source, accessGroup: accessGroup, progress: progress)
        default: break
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            throw .malformedJSON(source: source, error)
        }
        guard let chosen = format ?? ImportFormat.detect(value) else {
            throw .unrecognizedFormat(
                source: source,
                expected: "in a format tokencache imports (an MSAL JSON object, an MSAL.NET 2.x array of Key/Value pairs, keychain items, an ADAL.NET v3 blob, an ADAL macOS archive or an ADAL keychain item)")
        }
        switch chosen {
        case .msalJSON:
            guard case .object(let document) = value else {
                throw .unrecognizedFormat(source: source, expected: "MSAL JSON: its root must be an object, found \(value.kindName)")
            }
            return try decodeMSALJSON(document, source: source, accessGroup: accessGroup, progress: progress)
        case .msalV2:
            guard case .array(let elements) = value else {
                throw .unrecognizedFormat(source: source, expected: "the MSAL.NET 2.x format: its root must be an array, found \(value.kindName)")
            }
            return try decodeMSALV2(elements, source: source, accessGroup: accessGroup, progress: progress)
        case .adalV3, .adalMacOS, .adalKeychainItem:
            preconditionFailure("binary formats are decoded above")
        case .keychainItems:
            var bytes = data
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            let items: [StoreItem]
            do {
                items = try KeychainItemsFormat.decode(bytes, source: source)
            } catch {
                throw .invalidKeychainItems(error)
            }
            progress?(items.count, items.count)
            var collector = Collector()
            for item in items { collector.add(item) }
            return DecodedImport(format: .keychainItems, items: collector.items, entries: items.count, skipped: [], adjusted: [])
        }
    }

    // MARK: - MSAL JSON

    static func decodeMSALJSON(
        _ document: JSONObject, source: String, accessGroup: String, progress: ((Int, Int) -> Void)?
    ) throws(InterchangeError) -> DecodedImport {
        var sections: [(MSALSection, String, JSONObject)] = []
        for (name, value) in document {
            guard let section = MSALSection(name: name) else { continue }  // another SDK's node: not ours
            switch value {
            case .null: continue
            case .object(let entries): sections.append((section, name, entries))
            default:
                throw .invalidStructure(source: source, path: name, reason: "a section must be a JSON object of entries, found \(value.kindName)")
            }
        }
        let total = sections.reduce(0) { $0 + $1.2.count }
        var run = Run(accessGroup: accessGroup, total: total, progress: progress)
        for (section, name, entries) in sections {
            for (key, entry) in entries {
                try run.read(entry, section: section, path: "\(name) \(quotedKey(key))", source: source)
            }
        }
        return run.finish(format: .msalJSON)
    }

    // MARK: - MSAL.NET 2.x

    static func decodeMSALV2(
        _ elements: [JSONValue], source: String, accessGroup: String, progress: ((Int, Int) -> Void)?
    ) throws(InterchangeError) -> DecodedImport {
        var groups: [(MSALSection?, String, [JSONValue])] = []
        for (index, element) in elements.enumerated() {
            guard case .object(let pair) = element else {
                throw .invalidStructure(source: source, path: "[\(index)]", reason: "must be an object with 'Key' and 'Value', found \(element.kindName)")
            }
            guard case .string(let key)? = pair["Key"] else {
                throw .invalidStructure(source: source, path: "[\(index)].Key", reason: "must be a string (access_tokens, refresh_tokens, id_tokens or accounts)")
            }
            let values: [JSONValue]
            switch pair["Value"] {
            case .array(let list)?: values = list
            case .null?, nil: values = []
            case let other?:
                throw .invalidStructure(source: source, path: "[\(index)].Value", reason: "must be an array of JSON strings, found \(other.kindName)")
            }
            groups.append((MSALSection(dictionaryKey: key), key, values))
        }
        let total = groups.reduce(0) { $0 + $1.2.count }
        var run = Run(accessGroup: accessGroup, total: total, progress: progress)
        for (groupIndex, (section, key, values)) in groups.enumerated() {
            guard let section else {
                run.skipped.append(ImportIssue(path: "[\(groupIndex)] \(quotedKey(key))", reason: "not a section MSAL.NET 2.x writes; ignored"))
                run.done += values.count
                continue
            }
            for (index, value) in values.enumerated() {
                let path = "\(key)[\(index)]"
                guard case .string(let text) = value else {
                    throw .invalidStructure(source: source, path: path, reason: "must be a string holding an entry's JSON, found \(value.kindName)")
                }
                let entry: JSONValue
                do {
                    entry = try JSONValue.parse(text)
                } catch {
                    throw .invalidStructure(source: source, path: path, reason: "the string is not valid JSON: \(error)")
                }
                try run.read(entry, section: section, path: path, source: source)
            }
        }
        return run.finish(format: .msalV2)
    }

    /// The state of one decode: items by identity, issues, progress.
    private struct Run {
        let reader: MSALEntryReader
        let total: Int
        let progress: ((Int, Int) -> Void)?
        var collector = Collector()
        var derived = Collector()
        var skipped: [ImportIssue] = []
        var adjusted: [ImportIssue] = []
        var done = 0

        init(accessGroup: String, total: Int, progress: ((Int, Int) -> Void)?) {
            reader = MSALEntryReader(accessGroup: accessGroup)
            self.total = total
            self.progress = progress
            progress?(0, total)
        }

        mutating func read(_ entry: JSONValue, section: MSALSection, path: String, source: String) throws(InterchangeError) {
            let outcome: MSALEntryReader.Outcome
            do {
                outcome = try reader.read(entry, section: section)
            } catch {
                throw .invalidEntry(source: source, path: path, error)
            }
            switch outcome {
            case .items(let item, let extra, let adjustment):
                collector.add(item)
                for item in extra { derived.add(item) }
                if let adjustment { adjusted.append(ImportIssue(path: path, reason: adjustment)) }
            case .skipped(let reason):
                skipped.append(ImportIssue(path: path, reason: reason))
            case .ignored:
                break
            }
            done += 1
            if done % 256 == 0 || done == total { progress?(done, total) }
        }

        func finish(format: ImportFormat) -> DecodedImport {
            var all = collector
            for item in derived.items where all.index[item.identity] == nil { all.add(item) }
            return DecodedImport(format: format, items: all.items, entries: total, skipped: skipped, adjusted: adjusted)
        }
    }
}

/// Items by identity, in first-seen order; a later item with the same identity replaces the earlier.
struct Collector {
    private(set) var items: [StoreItem] = []
    private(set) var index: [ItemIdentity: Int] = [:]

    mutating func add(_ item: StoreItem) {
        if let position = index[item.identity] {
            items[position] = item
        } else {
            index[item.identity] = items.count
            items.append(item)
        }
    }
}
