/// Why bytes could not be read as a keyed archive. Never quotes the archive's content.
public enum KeyedArchiveError: Error, Sendable, CustomStringConvertible, Hashable {
    /// The bytes are not a binary property list.
    case propertyList(BinaryPropertyListError)
    /// The property list is not shaped like an `NSKeyedArchiver` archive; the text says where.
    case malformed(String)

    public var description: String {
        switch self {
        case .propertyList(let error): return "keyed archive: \(error)"
        case .malformed(let reason): return "keyed archive: \(reason)"
        }
    }
}
