#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A property-list value as the binary format stores it, including the `UID` type keyed archives use.
public indirect enum PropertyList: Sendable, Hashable {
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01T00:00:00Z (Apple's reference date).
    case date(Double)
    case data(Data)
    case string(String)
    /// A reference into a keyed archive's `$objects`.
    case uid(UInt64)
    case array([PropertyList])
    /// Keys in file order. Keys are strings in every plist a keyed archive produces.
    case dictionary([(key: String, value: PropertyList)])

    public static func == (lhs: PropertyList, rhs: PropertyList) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.uid(let a), .uid(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .bool(let value): hasher.combine(0); hasher.combine(value)
        case .integer(let value): hasher.combine(1); hasher.combine(value)
        case .real(let value): hasher.combine(2); hasher.combine(value)
        case .date(let value): hasher.combine(3); hasher.combine(value)
        case .data(let value): hasher.combine(4); hasher.combine(value)
        case .string(let value): hasher.combine(5); hasher.combine(value)
        case .uid(let value): hasher.combine(6); hasher.combine(value)
        case .array(let values): hasher.combine(7); hasher.combine(values)
        case .dictionary(let members):
            hasher.combine(8)
            for member in members { hasher.combine(member.key); hasher.combine(member.value) }
        }
    }

    /// The value for `key` when this is a dictionary.
    public subscript(key: String) -> PropertyList? {
        guard case .dictionary(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}
