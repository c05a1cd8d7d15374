#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// Reads an MSAL JSON document one entry at a time, never holding it as one tree: the parse hands
/// each entry of a section over as it completes (the same grammar, limits and errors as the whole
/// parse), and the entry is decoded and dropped.
///
/// A document whose root object names a member twice, or a section an entry key twice, is read
/// whole instead (``Walk/repeatedKeys``): the whole parse keeps the last of the two, which a stream
/// cannot know when it meets the first.
struct MSALJSONStream {
    let data: Data
    let source: String
    let reader: MSALEntryReader

    enum Walk {
        /// Every entry was handed over.
        case complete
        /// A key repeats; nothing can be concluded from the entries handed over.
        case repeatedKeys
        /// The body asked to stop.
        case stopped
    }

    /// Whether `data` is a document this reads: a JSON object (after a byte-order mark and white space).
    static func applies(to data: Data) -> Bool {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{")
    }

    /// Hands every entry of every section, in document order, to `body` with its path (as the whole
    /// read names it) and what it stands for; `body` returns false to stop.
    ///
    /// - Parameter checkingKeys: look for repeated entry keys (a digest per entry is kept for it;
    ///   a second walk over the same data need not).
    /// - Throws: ``InterchangeError/malformedJSON(source:_:)`` and, for a section that is not an
    ///   object, ``InterchangeError/invalidStructure(source:path:reason:)`` — both before any entry
    ///   error the body saw, as the whole read reports them.
    func walk(
        checkingKeys: Bool,
        _ body: (_ path: String, _ outcome: Result<MSALEntryReader.Outcome, SchemaError>) -> Bool
    ) throws(InterchangeError) -> Walk {
        var members = Set<String>()
        var keys = Set<Int>()
        var memberIndex = 0
        var name = ""
        var section: MSALSection?
        var result = Walk.complete
        let root: JSONValue?
        do {
            root = try JSONParser.parse(data, allowTrailingCommas: true) { event in
                switch event {
                case .member(let member):
                    guard members.insert(member).inserted else {
                        result = .repeatedKeys
                        return .stop
                    }
                    memberIndex += 1
                    name = member
                    section = MSALSection(name: member)
                    return section == nil ? .skip : .visit
                case .entry(let key, let value):
                    if checkingKeys {
                        var hasher = Hasher()
                        hasher.combine(memberIndex)
                        hasher.combine(key)
                        // Equal keys always collide; a collision of different keys only costs a whole read.
                        guard keys.insert(hasher.finalize()).inserted else {
                            result = .repeatedKeys
                            return .stop
                        }
                    }
                    let outcome = Result { () throws(SchemaError) in try reader.read(value, section: section!) }
                    guard body("\(name) \(quotedKey(key))", outcome) else {
                        result = .stopped
                        return .stop
                    }
                    return .visit
                }
            }
        } catch {
            throw .malformedJSON(source: source, error)
        }
        guard case .object(let document)? = root else { return result }
        for (member, value) in document where MSALSection(name: member) != nil {
            switch value {
            case .null, .object: continue
            default:
                throw .invalidStructure(source: source, path: member, reason: "a section must be a JSON object of entries, found \(value.kindName)")
            }
        }
        return result
    }
}
