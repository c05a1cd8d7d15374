#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes Apple's binary property list format (`bplist00`), UIDs included.
///
/// Strings are written as ASCII when they are ASCII and as UTF-16BE otherwise, as Apple's writer
/// does; equal strings share one object.
public enum BinaryPropertyListWriter {
    /// Encodes `value` as a binary property list.
    public static func write(_ value: PropertyList) -> Data {
        var writer = Writer()
        let top = writer.add(value)
        return writer.finish(top: top)
    }

    private struct Writer {
        /// Each object's encoding, with references still as object indexes.
        var objects: [Object] = []
        var stringIndex: [String: Int] = [:]

        enum Object {
            case scalar([UInt8])
            case array(marker: UInt8, [Int])
            case dictionary(keys: [Int], values: [Int])
        }

        mutating func add(_ value: PropertyList) -> Int {
            switch value {
            case .string(let string):
                if let existing = stringIndex[string] { return existing }
                let index = append(.scalar(Self.encodeString(string)))
                stringIndex[string] = index
                return index
            case .array(let values):
                let index = append(.array(marker: 0xA0, []))
                let references = values.map { add($0) }
                objects[index] = .array(marker: 0xA0, references)
                return index
            case .dictionary(let members):
                let index = append(.dictionary(keys: [], values: []))
                let keys = members.map { add(.string($0.key)) }
                let values = members.map { add($0.value) }
                objects[index] = .dictionary(keys: keys, values: values)
                return index
            default:
                return append(.scalar(Self.encodeScalar(value)))
            }
        }

        mutating func append(_ object: Object) -> Int {
            objects.append(object)
            return objects.count - 1
        }

        func finish(top: Int) -> Data {
            let referenceSize = Self.byteCount(UInt64(objects.count))
            var out: [UInt8] = Array("bplist00".utf8)
            var offsets: [Int] = []
            offsets.reserveCapacity(objects.count)
            for object in objects {
                offsets.append(out.count)
                switch object {
                case .scalar(let bytes):
                    out += bytes
                case .array(let marker, let references):
                    out += Self.header(marker, count: references.count)
                    for reference in references { out += Self.bigEndian(UInt64(reference), size: referenceSize) }
                case .dictionary(let keys, let values):
                    out += Self.header(0xD0, count: keys.count)
                    for reference in keys + values { out += Self.bigEndian(UInt64(reference), size: referenceSize) }
                }
            }
            let tableOffset = out.count
            let offsetSize = Self.byteCount(UInt64(tableOffset))
            for offset in offsets { out += Self.bigEndian(UInt64(offset), size: offsetSize) }
            out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
            out += Self.bigEndian(UInt64(objects.count), size: 8)
            out += Self.bigEndian(UInt64(top), size: 8)
            out += Self.bigEndian(UInt64(tableOffset), size: 8)
            return Data(out)
        }

        static func byteCount(_ value: UInt64) -> Int {
            value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
        }

        static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
        }

        /// A marker with a count: in the low nibble when below 15, else 0xF and an integer object.
        static func header(_ marker: UInt8, count: Int) -> [UInt8] {
            if count < 15 { return [marker | UInt8(count)] }
            return [marker | 0x0F] + encodeInteger(Int64(count))
        }

        static func encodeInteger(_ value: Int64) -> [UInt8] {
            // 1, 2 and 4-byte integers are read as unsigned: negative values need 8 bytes.
            if value >= 0 && value <= 0xFF { return [0x10] + bigEndian(UInt64(value), size: 1) }
            if value >= 0 && value <= 0xFFFF { return [0x11] + bigEndian(UInt64(value), size: 2) }
            if value >= 0 && value <= 0xFFFF_FFFF { return [0x12] + bigEndian(UInt64(value), size: 4) }
            return [0x13] + bigEndian(UInt64(bitPattern: value), size: 8)
        }

        static func encodeString(_ string: String) -> [UInt8] {
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                return header(0x50, count: string.utf8.count) + Array(string.utf8)
            }
            let units = Array(string.utf16)
            return header(0x60, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }

        static func encodeScalar(_ value: PropertyList) -> [UInt8] {
            switch value {
            case .bool(let flag): return [flag ? 0x09 : 0x08]
            case .integer(let number): return encodeInteger(number)
            case .real(let number): return [0x23] + bigEndian(number.bitPattern, size: 8)
            case .date(let seconds): return [0x33] + bigEndian(seconds.bitPattern, size: 8)
            case .data(let data): return header(0x40, count: data.count) + Array(data)
            case .uid(let uid):
                let size = byteCount(uid)
                return [0x80 | UInt8(size - 1)] + bigEndian(uid, size: size)
            case .string, .array, .dictionary:
                preconditionFailure("containers and strings are added by add(_:)")
            }
        }
    }
}
