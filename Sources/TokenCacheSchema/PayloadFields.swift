@_spi(Text) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON

/// Reads known fields out of a payload object; what it leaves in ``remaining`` are the unknown
/// fields that the models carry through a read-modify-write.
///
/// Reading is tolerant the way the fixtures need: `null` or a missing field is `nil`; a number is
/// accepted where a string is expected (its text is used); timestamps may be strings of integer or
/// decimal seconds (truncated) or numbers. Anything else in a known field is an error naming it.
struct PayloadFields {
    private let object: JSONObject
    /// Members already read, by position: a mask for the first 64, a set beyond. Reading marks a
    /// member instead of removing it, so a payload is searched but never reshuffled or copied until
    /// ``remaining`` is asked for, once.
    private var takenMask: UInt64 = 0
    private var takenBeyond: Set<Int> = []

    init(_ object: JSONObject) {
        self.object = object
    }

    /// The members not read yet, in order.
    var remaining: JSONObject {
        if takenMask == 0 && takenBeyond.isEmpty { return object }
        return object.removingMembers(where: isTaken)
    }

    private func isTaken(_ position: Int) -> Bool {
        position < 64 ? takenMask & (1 << UInt64(position)) != 0 : takenBeyond.contains(position)
    }

    /// Marks `key`'s member read and returns its value.
    private mutating func take(_ key: String) -> JSONValue? {
        guard let position = object.memberPosition(of: key), !isTaken(position) else { return nil }
        if position < 64 {
            takenMask |= 1 << UInt64(position)
        } else {
            takenBeyond.insert(position)
        }
        return object.memberValue(at: position)
    }

    /// The value of `key`'s member, unless already read.
    private func peek(_ key: String) -> JSONValue? {
        guard let position = object.memberPosition(of: key), !isTaken(position) else { return nil }
        return object.memberValue(at: position)
    }

    /// Parses a payload: JSON (BOM and `\/` accepted) whose root is an object.
    ///
    /// With `built`, only those root members' values are built; the others read as placeholders of
    /// their kind (``JSONParser/parse(_:allowTrailingCommas:buildingRootMembers:)``), so every
    /// check on them answers as on the full object.
    static func object(from data: Data, building built: Set<String>? = nil) throws(SchemaError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser.parse(data, allowTrailingCommas: true, buildingRootMembers: built)
        } catch {
            throw .malformedJSON(error, item: nil)
        }
        guard case .object(let object) = value else { throw .notAnObject(found: value.kindName, item: nil) }
        return object
    }

    /// Removes `key` and returns its string value.
    mutating func string(_ key: String) throws(SchemaError) -> String? {
        guard let value = take(key) else { return nil }
        return try Self.string(value, field: key)
    }

    /// The string value of `key` without removing it.
    func peekString(_ key: String) throws(SchemaError) -> String? {
        guard let value = peek(key) else { return nil }
        return try Self.string(value, field: key)
    }

    /// Removes `key` and returns its value as whole seconds.
    mutating func timestamp(_ key: String) throws(SchemaError) -> Int64? {
        guard let value = take(key) else { return nil }
        return try Self.timestamp(value, field: key)
    }

    /// The timestamp value of `key` without removing it.
    func peekTimestamp(_ key: String) throws(SchemaError) -> Int64? {
        guard let value = peek(key) else { return nil }
        return try Self.timestamp(value, field: key)
    }

    /// Removes `key` and returns its object value.
    mutating func object(_ key: String) throws(SchemaError) -> JSONObject? {
        guard let value = take(key) else { return nil }
        switch value {
        case .null: return nil
        case .object(let object): return object
        default: throw .invalidField(key, reason: "must be a JSON object, found \(value.kindWithArticle)", item: nil)
        }
    }

    static func string(_ value: JSONValue, field: String) throws(SchemaError) -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        case .number(let number): return number.text
        default: throw .invalidField(field, reason: "must be a string, found \(value.kindWithArticle)", item: nil)
        }
    }

    static func timestamp(_ value: JSONValue, field: String) throws(SchemaError) -> Int64? {
        guard let seconds = try unboundedTimestamp(value, field: field) else { return nil }
        guard UnixTime.range.contains(seconds) else {
            throw .invalidField(field, reason: "is \(seconds), out of range: it must be \(UnixTime.rangeDescription)", item: nil)
        }
        return seconds
    }

    private static func unboundedTimestamp(_ value: JSONValue, field: String) throws(SchemaError) -> Int64? {
        switch value {
        case .null:
            return nil
        case .number(let number):
            guard let seconds = number.truncatedInt64 else {
                throw .invalidField(field, reason: "is a number out of range for seconds since 1970", item: nil)
            }
            return seconds
        case .string(let text):
            // Fast path: what every writer stores, plain decimal digits.
            if let seconds = plainDigits(text) { return seconds }
            let trimmed = text.trimming(.whitespacesAndNewlines)
            if trimmed.isEmpty { return nil }
            if let seconds = Int64(trimmed) { return seconds }
            let unsigned = trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed
            guard let number = JSONNumber(text: unsigned), let seconds = number.truncatedInt64 else {
                throw .invalidField(field, reason: "must hold seconds since 1970 as decimal digits (\(text.count) characters found)", item: nil)
            }
            return seconds
        default:
            throw .invalidField(field, reason: "must be a string of seconds since 1970, found \(value.kindWithArticle)", item: nil)
        }
    }
}

/// The value of `text` when it is 1 to 18 ASCII digits and nothing else (no sign, no spaces), read
/// without Foundation; `nil` otherwise.
private func plainDigits(_ text: String) -> Int64? {
    let utf8 = text.utf8
    guard !utf8.isEmpty, utf8.count <= 18 else { return nil }
    var value: Int64 = 0
    for byte in utf8 {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
    }
    return value
}

extension JSONObject {
    /// Sets `key` to a string, or removes it for `nil`.
    mutating func set(_ key: String, _ value: String?) {
        self[key] = value.map(JSONValue.string)
    }

    /// Sets `key` to the decimal text of `seconds` (a JSON string, as every library writes
    /// timestamps), or removes it for `nil`.
    mutating func setTimestamp(_ key: String, _ seconds: Int64?) {
        self[key] = seconds.map { .string(String($0)) }
    }

    /// Compact JSON with keys sorted by their UTF-8 bytes: the byte form of every payload this
    /// module writes.
    var payloadData: Data {
        JSONValue.object(self).serialized(sortingKeys: true)
    }
}
