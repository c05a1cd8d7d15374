import CacheStore
import KeyedArchive
import TokenCacheJSON

/// The attributes that name a stored item in error messages: its type, account and service.
///
/// These are key attributes (home account id, environment, client id, scopes), never the payload,
/// so a message carrying them carries no token.
public struct ItemReference: Sendable, Hashable, CustomStringConvertible {
    /// `kSecAttrType`, if any.
    public var type: UInt32?
    /// `kSecAttrAccount`.
    public var account: String
    /// `kSecAttrService`.
    public var service: String

    /// Creates a reference from the three attributes.
    public init(type: UInt32?, account: String, service: String) {
        self.type = type
        self.account = account
        self.service = service
    }

    /// The reference to `item`.
    public init(_ item: StoreItem) {
        self.init(type: item.type, account: item.account, service: item.service)
    }

    public var description: String {
        let type = self.type.map(String.init) ?? "none"
        return "item (type \(type), account '\(account)', service '\(service)')"
    }
}

/// Why a unified item or payload could not be read or written.
///
/// Every case names the item (when known) and the field; no case carries a secret or any other
/// payload string.
public enum SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload is not valid JSON.
    case malformedJSON(JSONParseError, item: ItemReference?)
    /// The payload is JSON, but not an object (`found` is the JSON kind, e.g. `array`).
    case notAnObject(found: String, item: ItemReference?)
    /// A required field is absent or `null`.
    case missingField(String, item: ItemReference?)
    /// A field holds a value of the wrong kind or an unusable value; `reason` says which.
    case invalidField(String, reason: String, item: ItemReference?)
    /// The item's `type` attribute is not the kind the caller asked to decode.
    case wrongItemType(expected: String, item: ItemReference)
    /// A legacy ADAL payload is not a readable keyed archive of the expected classes.
    case malformedArchive(KeyedArchiveError, item: ItemReference?)

    /// The item the error is about, when known.
    public var item: ItemReference? {
        switch self {
        case .malformedJSON(_, let item), .notAnObject(_, let item), .missingField(_, let item),
            .invalidField(_, _, let item), .malformedArchive(_, let item):
            item
        case .wrongItemType(_, let item):
            item
        }
    }

    /// The same error, naming `item`.
    public func attaching(_ item: ItemReference) -> SchemaError {
        switch self {
        case .malformedJSON(let error, _): .malformedJSON(error, item: item)
        case .notAnObject(let found, _): .notAnObject(found: found, item: item)
        case .missingField(let field, _): .missingField(field, item: item)
        case .invalidField(let field, let reason, _): .invalidField(field, reason: reason, item: item)
        case .wrongItemType(let expected, _): .wrongItemType(expected: expected, item: item)
        case .malformedArchive(let error, _): .malformedArchive(error, item: item)
        }
    }

    public var description: String {
        let subject = item.map { "\($0)" } ?? "payload"
        switch self {
        case .malformedJSON(let error, _):
            return "\(subject): the payload is not valid JSON: \(error); the item cannot be read and may be deleted and written again"
        case .notAnObject(let found, _):
            return "\(subject): the payload is a JSON \(found), not an object; a unified item's payload must be a JSON object"
        case .missingField(let field, _):
            return "\(subject): required field '\(field)' is missing or null"
        case .invalidField(let field, let reason, _):
            return "\(subject): field '\(field)' \(reason)"
        case .wrongItemType(let expected, _):
            return "\(subject): expected \(expected), but the type attribute says otherwise"
        case .malformedArchive(let error, _):
            return "\(subject): the legacy ADAL payload cannot be read: \(error)"
        }
    }
}

extension SchemaError: CategorizedError {
    /// An item or entry that breaks the unified schema: bad input when handed in (an import, a
    /// blob); a malformed stored item is skipped by the engine, not thrown.
    public var category: ErrorCategory { .badInput }
}

extension JSONParseError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}

// KeyedArchive knows nothing of the store contract; its errors are categorized here, where the
// cache reads archives.
extension KeyedArchiveError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}

extension BinaryPropertyListError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}
