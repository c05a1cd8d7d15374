#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``JSONParser/parse(_:allowTrailingCommas:visitor:)`` hands over, in document order.
package enum JSONEntryEvent {
    /// A member of the root object begins; the visitor answers whether to visit its entries.
    case member(name: String)
    /// One member of a visited root member's object, built in full.
    case entry(key: String, value: JSONValue)
}

/// A visitor's answer: visit a root member's entries (or go on), skip the member, or stop parsing.
package enum JSONVisit {
    case visit, skip, stop
}

extension JSONParser {
    /// Parses `data` with the grammar, limits and errors of ``parse(_:allowTrailingCommas:)``, but
    /// hands each member of the root members the visitor chose (when such a member is an object)
    /// to `visitor` as it completes, instead of keeping it: the document is never held as one
    /// tree, so a cache of a million entries is read in the memory of one entry. The value limit
    /// counts what is held at once (a handed-over entry's values are freed).
    ///
    /// Returns the root, with every visited member's object empty and every other root member a
    /// placeholder of its kind (as ``parse(_:allowTrailingCommas:buildingRootMembers:)``), or `nil`
    /// when the visitor answered ``JSONVisit/stop``, which ends the parse there.
    package static func parse(
        _ data: Data, allowTrailingCommas: Bool, visitor: (JSONEntryEvent) -> JSONVisit
    ) throws(JSONParseError) -> JSONValue? {
        try withoutActuallyEscaping(visitor) { (visitor) throws(JSONParseError) -> JSONValue? in
            var result: Result<JSONValue?, JSONParseError>?
            data.withUnsafeBytes { raw in
                var bytes = raw.assumingMemoryBound(to: UInt8.self)
                if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = UnsafeBufferPointer(rebasing: bytes[3...]) }
                result = Result { () throws(JSONParseError) -> JSONValue? in
                    var parser = JSONParser(bytes: bytes, allowTrailingCommas: allowTrailingCommas, builtRootMembers: nil, visitor: visitor)
                    let value = try parser.parseDocument()
                    // `.none`, not `nil`: a bare `nil` would be read as JSONValue's `null` literal.
                    return parser.stopped ? Optional<JSONValue>.none : value
                }
            }
            return try result!.get()
        }
    }
}
