#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value of an `NSKeyedArchiver` object graph, decoded without instantiating any class.
///
/// Foundation's own containers and scalars become plain cases; any other class becomes
/// ``object(_:)`` with its class name and encoded fields, so archives of classes that do not exist
/// here (`ADTokenCacheStoreItem`, `ADUserInformation`) read safely.
public indirect enum ArchivedValue: Sendable, Hashable {
    /// `nil` (`$null`).
    case null
    /// An inline boolean (`encodeBool:forKey:`) or an `NSNumber` holding one.
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// `NSString` or `NSMutableString`.
    case string(String)
    /// `NSDate`.
    case date(Date)
    /// `NSData`.
    case data(Data)
    /// `NSArray`, `NSMutableArray`, `NSSet`, …: the class name is kept so archives round-trip.
    case array(className: String, [ArchivedValue])
    /// `NSDictionary` or `NSMutableDictionary`; keys may be objects (`ADTokenCacheKey` in ADAL's macOS cache).
    case dictionary(className: String, keys: [ArchivedValue], values: [ArchivedValue])
    /// An instance of any other class.
    case object(ArchivedObject)

    /// A string value, or `nil`.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The value for a string key of a dictionary, or `nil`.
    public subscript(key: String) -> ArchivedValue? {
        guard case .dictionary(_, let keys, let values) = self else { return nil }
        return keys.firstIndex(of: .string(key)).map { values[$0] }
    }

    /// A dictionary with string keys, as Foundation would write it (`NSDictionary` by default).
    public static func dictionary(_ members: [(String, ArchivedValue)], className: String = "NSDictionary") -> ArchivedValue {
        .dictionary(className: className, keys: members.map { .string($0.0) }, values: members.map(\.1))
    }
}

/// An archived instance of a class that is not one of Foundation's value classes.
public struct ArchivedObject: Sendable, Hashable {
    /// `$classname`, e.g. `ADTokenCacheStoreItem`.
    public var className: String
    /// `$classes`: the class and its superclasses, most specific first.
    public var classes: [String]
    /// The encoded fields, in archive order.
    public var fields: [Field]

    public struct Field: Sendable, Hashable {
        public var key: String
        public var value: ArchivedValue

        public init(_ key: String, _ value: ArchivedValue) {
            self.key = key
            self.value = value
        }
    }

    public init(className: String, classes: [String]? = nil, fields: [Field]) {
        self.className = className
        self.classes = classes ?? [className, "NSObject"]
        self.fields = fields
    }

    /// The field named `key`, or `nil` when the archive has none.
    public subscript(key: String) -> ArchivedValue? {
        fields.first { $0.key == key }?.value
    }
}
