@_spi(Text) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// The ADAL.NET v3 cache blob, as ADAL.NET 3–5 and MSAL.NET read and write it with .NET's
/// `BinaryWriter`: a little-endian `Int32` version (3), an `Int32` entry count, then per entry a key
/// string and a value string, each a 7-bit-encoded byte length followed by UTF-8 bytes.
///
/// A key is `<authority>:::<resource>:::<client id>:::<token subject type>`; a value is the
/// `DataContractJsonSerializer` JSON of ADAL's authentication result.
public enum ADALNetV3Blob {
    /// One entry of the blob.
    public struct Entry: Sendable, Hashable {
        public var authority: String
        public var resource: String
        public var clientId: String
        /// 0 user, 1 client, 2 user plus client.
        public var subjectType: Int
        public var value: JSONObject

        public init(authority: String, resource: String, clientId: String, subjectType: Int, value: JSONObject) {
            self.authority = authority
            self.resource = resource
            self.clientId = clientId
            self.subjectType = subjectType
            self.value = value
        }

        /// The key string ADAL writes.
        public var key: String { [authority, resource, clientId, String(subjectType)].joined(separator: ":::") }
    }

    /// The only version ADAL.NET writes; other versions are refused.
    public static let version: Int32 = 3

    /// Whether `data` starts like an ADAL.NET v3 blob.
    public static func looksLikeBlob(_ data: Data) -> Bool {
        data.count >= 8 && data.prefix(4).elementsEqual([3, 0, 0, 0])
    }

    /// Reads the entries.
    ///
    /// - Throws: ``InterchangeError/invalidStructure(source:path:reason:)`` naming the entry and the
    ///   byte offset; ``InterchangeError/invalidEntry(source:path:_:)`` for a value that is not a
    ///   JSON object. Lengths and counts are checked against the input before anything is allocated.
    public static func read(_ data: Data, source: String) throws(InterchangeError) -> [Entry] {
        var reader = Reader(bytes: [UInt8](data), source: source)
        let found = try reader.int32(path: "version")
        guard found == version else {
            throw .invalidStructure(source: source, path: "version", reason: "is \(found); only ADAL.NET v3 blobs (version 3) are read")
        }
        let count = try reader.int32(path: "count")
        // Each entry takes at least two bytes (two empty strings).
        guard count >= 0, Int(count) <= (reader.bytes.count - reader.position) / 2 else {
            throw .invalidStructure(source: source, path: "count", reason: "says \(count) entries, more than the \(reader.bytes.count) bytes can hold")
        }
        var entries: [Entry] = []
        for index in 0..<Int(count) {
            let path = "entry \(index)"
            let key = try reader.string(path: path + " key")
            let valueText = try reader.string(path: path + " value")
            let parts = key.components(separatedBy: ":::")
            guard parts.count == 4, let subjectType = Int(parts[3]) else {
                throw .invalidStructure(source: source, path: path, reason: "the key is not '<authority>:::<resource>:::<client id>:::<subject type>'")
            }
            let value: JSONValue
            do {
                value = try JSONValue.parse(valueText)
            } catch {
                throw .invalidStructure(source: source, path: path + " value", reason: "not valid JSON: \(error)")
            }
            guard case .object(let object) = value else {
                throw .invalidStructure(source: source, path: path + " value", reason: "must be a JSON object, found \(value.kindName)")
            }
            entries.append(Entry(authority: parts[0], resource: parts[1], clientId: parts[2], subjectType: subjectType, value: object))
        }
        guard reader.position == reader.bytes.count else {
            throw .invalidStructure(source: source, path: "end", reason: "\(reader.bytes.count - reader.position) bytes follow the last entry")
        }
        return entries
    }

    /// Writes entries as ADAL.NET does.
    public static func write(_ entries: [Entry]) -> Data {
        var out: [UInt8] = []
        func int32(_ value: Int32) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        func string(_ text: String) {
            var length = UInt32(text.utf8.count)
            while length >= 0x80 {
                out.append(UInt8(length & 0x7F) | 0x80)
                length >>= 7
            }
            out.append(UInt8(length))
            out += text.utf8
        }
        int32(version)
        int32(Int32(entries.count))
        for entry in entries {
            string(entry.key)
            // DataContractJsonSerializer escapes every '/' — and recognizes a date only in its
            // escaped form, "\/Date(…)\/".
            string(JSONValue.object(entry.value).serializedString().replacingEvery("/", with: "\\/"))
        }
        return Data(out)
    }

    /// Reads a DataContract date (`{"DateTime": "/Date(1455218790065)/", "OffsetMinutes": 0}`, or the
    /// bare string) as a date; `nil` when absent or not of that shape.
    public static func date(_ value: JSONValue?) -> Date? {
        let text: String
        switch value {
        case .string(let string)?: text = string
        case .object(let object)?:
            guard let string = object["DateTime"]?.stringValue else { return nil }
            text = string
        default: return nil
        }
        guard let open = text.firstIndex(of: "("), let close = text.firstIndex(of: ")"), open < close else { return nil }
        var digits = text[text.index(after: open)..<close]
        // A local-time form carries an offset (`+0100`); the milliseconds are UTC either way.
        if let sign = digits.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }) { digits = digits[..<sign] }
        guard let milliseconds = Int64(digits) else { return nil }
        let date = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
        return UnixTime.isValid(date) ? date : nil
    }

    /// The DataContract form of a date.
    public static func dataContract(_ date: Date) -> JSONValue {
        // Within UnixTime.range the milliseconds fit in Int64 many times over; outside it, clamp.
        let seconds = UnixTime.isValid(date) ? date.timeIntervalSince1970 : Double(UnixTime.clampedSeconds(date))
        let milliseconds = Int64((seconds * 1000).rounded())
        return ["DateTime": .string("/Date(\(milliseconds))/"), "OffsetMinutes": 0]
    }

    private struct Reader {
        let bytes: [UInt8]
        let source: String
        var position = 0

        init(bytes: [UInt8], source: String) {
            self.bytes = bytes
            self.source = source
        }

        mutating func int32(path: String) throws(InterchangeError) -> Int32 {
            guard bytes.count - position >= 4 else {
                throw .invalidStructure(source: source, path: path, reason: "truncated at byte \(position)")
            }
            var value: UInt32 = 0
            for offset in 0..<4 { value |= UInt32(bytes[position + offset]) << (8 * UInt32(offset)) }
            position += 4
            return Int32(bitPattern: value)
        }

        mutating func string(path: String) throws(InterchangeError) -> String {
            let start = position
            var length: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard position < bytes.count else {
                    throw .invalidStructure(source: source, path: path, reason: "truncated length at byte \(start)")
                }
                let byte = bytes[position]
                position += 1
                length |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
                guard shift < 35 else {
                    throw .invalidStructure(source: source, path: path, reason: "length at byte \(start) is longer than five bytes")
                }
            }
            guard length <= UInt64(bytes.count - position) else {
                throw .invalidStructure(source: source, path: path, reason: "length \(length) at byte \(start) runs past the end of the input")
            }
            let end = position + Int(length)
            guard let text = String(validating: bytes[position..<end], as: UTF8.self) else {
                throw .invalidStructure(source: source, path: path, reason: "not valid UTF-8 at byte \(position)")
            }
            position = end
            return text
        }
    }
}
