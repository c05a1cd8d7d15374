#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Apple's binary property list format (`bplist00`), UIDs included.
///
/// Every length, offset and reference is checked against the input before it is used, containers
/// may nest at most ``maximumDepth`` deep and a container may not contain itself, so hostile input
/// ends in a ``BinaryPropertyListError``, never a crash, a hang or a huge allocation.
public enum BinaryPropertyListReader {
    /// The deepest nesting of arrays and dictionaries accepted.
    public static let maximumDepth = 256
    /// The most values one document may expand to. Objects referenced from many places are expanded
    /// at each place, so without a bound a small file could expand exponentially.
    public static let maximumValues = 1_000_000

    /// Parses `data`.
    public static func read(_ data: Data) throws(BinaryPropertyListError) -> PropertyList {
        var parser = Parser(bytes: [UInt8](data))
        return try parser.parse()
    }

    /// Whether `data` starts like a binary property list.
    public static func isBinaryPropertyList(_ data: Data) -> Bool {
        data.count >= 8 && data.prefix(8).elementsEqual("bplist00".utf8)
    }

    private struct Parser {
        let bytes: [UInt8]
        var offsetSize = 0
        var referenceSize = 0
        var objectCount = 0
        var offsetTable = 0
        var visiting: Set<Int> = []
        var produced = 0
        /// Strings, data and containers already read, by object index, with the height of their
        /// nesting: an object referenced many times is read once and shared (copy-on-write), so
        /// references cannot multiply the work, which stays linear in the input's size.
        /// Each also records how many values it expands to, which a reference counts again, so the
        /// value returned never expands past ``maximumValues`` however it is walked.
        var parsed: [Int: (value: PropertyList, height: Int, size: Int)] = [:]
        /// The deepest nesting below the object being read (0 for a scalar).
        var height = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func parse() throws(BinaryPropertyListError) -> PropertyList {
            guard bytes.count >= 8 + 1 + 32, bytes[0..<8].elementsEqual("bplist00".utf8) else {
                throw BinaryPropertyListError("not a binary property list (no bplist00 header)", offset: 0)
            }
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            let count = try unsigned(at: trailer + 8, size: 8)
            let top = try unsigned(at: trailer + 16, size: 8)
            let table = try unsigned(at: trailer + 24, size: 8)
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
                throw BinaryPropertyListError("invalid offset or reference size in trailer", offset: trailer)
            }
            // Each object takes at least one byte, so there cannot be more objects than bytes.
            guard count > 0, count <= UInt64(bytes.count), top < count else {
                throw BinaryPropertyListError("object count or top object out of range", offset: trailer)
            }
            objectCount = Int(count)
            guard table >= 8, table <= UInt64(trailer),
                UInt64(trailer) - table >= UInt64(objectCount) * UInt64(offsetSize)
            else {
                throw BinaryPropertyListError("offset table out of range", offset: trailer)
            }
            offsetTable = Int(table)
            return try object(Int(top), depth: 0)
        }

        func unsigned(at offset: Int, size: Int) throws(BinaryPropertyListError) -> UInt64 {
            guard offset >= 0, size <= 8, offset + size <= bytes.count else {
                throw BinaryPropertyListError("truncated", offset: offset)
            }
            var value: UInt64 = 0
            for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        func offset(of object: Int) throws(BinaryPropertyListError) -> Int {
            let value = try unsigned(at: offsetTable + object * offsetSize, size: offsetSize)
            guard value >= 8, value < UInt64(offsetTable) else {
                throw BinaryPropertyListError("object \(object) has an offset outside the object area", offset: offsetTable + object * offsetSize)
            }
            return Int(value)
        }

        /// The length that follows a marker whose low nibble is 0xF: an integer object.
        func length(marker: UInt8, at start: Int) throws(BinaryPropertyListError) -> (count: Int, next: Int) {
            let nibble = Int(marker & 0x0F)
            guard nibble == 0x0F else { return (nibble, start + 1) }
            guard start + 1 < bytes.count else { throw BinaryPropertyListError("truncated length", offset: start) }
            let intMarker = bytes[start + 1]
            guard intMarker & 0xF0 == 0x10 else {
                throw BinaryPropertyListError("length is not an integer", offset: start + 1)
            }
            let size = 1 << Int(intMarker & 0x0F)
            guard size <= 8 else { throw BinaryPropertyListError("length too large", offset: start + 1) }
            let value = try unsigned(at: start + 2, size: size)
            guard value <= UInt64(bytes.count) else {
                throw BinaryPropertyListError("length \(value) exceeds the input", offset: start + 1)
            }
            return (Int(value), start + 2 + size)
        }

        func checkRange(_ start: Int, _ count: Int, element: Int = 1) throws(BinaryPropertyListError) {
            guard count >= 0, start >= 0, start <= offsetTable, count <= (offsetTable - start) / element else {
                throw BinaryPropertyListError("content runs past the object area", offset: start)
            }
        }

        func reference(at offset: Int) throws(BinaryPropertyListError) -> Int {
            let value = try unsigned(at: offset, size: referenceSize)
            guard value < UInt64(objectCount) else {
                throw BinaryPropertyListError("reference to object \(value) of \(objectCount)", offset: offset)
            }
            return Int(value)
        }

        mutating func count(_ values: Int) throws(BinaryPropertyListError) {
            produced += values
            guard produced <= BinaryPropertyListReader.maximumValues else {
                throw BinaryPropertyListError("expands to more than \(BinaryPropertyListReader.maximumValues) values")
            }
        }

        mutating func object(_ index: Int, depth: Int) throws(BinaryPropertyListError) -> PropertyList {
            height = 0
            if let known = parsed[index] {
                guard depth + known.height <= BinaryPropertyListReader.maximumDepth else {
                    throw BinaryPropertyListError("nested deeper than \(BinaryPropertyListReader.maximumDepth) levels")
                }
                try count(known.size)
                height = known.height
                return known.value
            }
            try count(1)
            let start = try offset(of: index)
            let marker = bytes[start]
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw BinaryPropertyListError("unsupported simple value 0x\(String(marker, radix: 16))", offset: start)
                }
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                guard size <= 16 else { throw BinaryPropertyListError("integer too large", offset: start) }
                if size == 16 {
                    // 128-bit integers appear only for values above Int64; keep the low 64 bits' sign.
                    let low = try unsigned(at: start + 9, size: 8)
                    return .integer(Int64(bitPattern: low))
                }
                let raw = try unsigned(at: start + 1, size: size)
                // 1, 2 and 4-byte integers are unsigned; 8-byte ones are signed.
                return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
            case 0x2:
                let size = 1 << Int(marker & 0x0F)
                let raw = try unsigned(at: start + 1, size: size)
                switch size {
                case 4: return .real(Double(Float(bitPattern: UInt32(raw))))
                case 8: return .real(Double(bitPattern: raw))
                default: throw BinaryPropertyListError("real of \(size) bytes", offset: start)
                }
            case 0x3:
                guard marker == 0x33 else { throw BinaryPropertyListError("invalid date marker", offset: start) }
                return .date(Double(bitPattern: try unsigned(at: start + 1, size: 8)))
            case 0x4, 0x5, 0x6:
                if let known = parsed[index] { return known.value }
                let leaf = try self.leaf(marker: marker, at: start)
                parsed[index] = (leaf, 0, 1)
                return leaf
            case 0x8:
                let size = Int(marker & 0x0F) + 1
                guard size <= 8 else { throw BinaryPropertyListError("UID too large", offset: start) }
                return .uid(try unsigned(at: start + 1, size: size))
            case 0xA, 0xC:
                let (count, next) = try length(marker: marker, at: start)
                try checkRange(next, count, element: referenceSize)
                var containerHeight = 1
                let before = produced - 1
                let values = try container(index, depth: depth) { (parser) throws(BinaryPropertyListError) in
                    var values: [PropertyList] = []
                    values.reserveCapacity(count)
                    for position in 0..<count {
                        let reference = try parser.reference(at: next + position * parser.referenceSize)
                        values.append(try parser.child(reference, depth: depth + 1, height: &containerHeight))
                    }
                    return values
                }
                return remember(.array(values), at: index, height: containerHeight, size: produced - before)
            case 0xD:
                let (count, next) = try length(marker: marker, at: start)
                try checkRange(next, count, element: 2 * referenceSize)
                var containerHeight = 1
                let before = produced - 1
                let members = try container(index, depth: depth) { (parser) throws(BinaryPropertyListError) in
                    var members: [(key: String, value: PropertyList)] = []
                    members.reserveCapacity(count)
                    for position in 0..<count {
                        let keyReference = try parser.reference(at: next + position * parser.referenceSize)
                        guard case .string(let key) = try parser.child(keyReference, depth: depth + 1, height: &containerHeight) else {
                            throw BinaryPropertyListError("dictionary key is not a string", offset: next + position * parser.referenceSize)
                        }
                        let valueReference = try parser.reference(at: next + (count + position) * parser.referenceSize)
                        members.append((key, try parser.child(valueReference, depth: depth + 1, height: &containerHeight)))
                    }
                    return members
                }
                return remember(.dictionary(members), at: index, height: containerHeight, size: produced - before)
            default:
                throw BinaryPropertyListError("unknown object type 0x\(String(marker, radix: 16))", offset: start)
            }
        }

        /// Reads data (0x4), an ASCII string (0x5) or a UTF-16 string (0x6).
        func leaf(marker: UInt8, at start: Int) throws(BinaryPropertyListError) -> PropertyList {
            let (count, next) = try length(marker: marker, at: start)
            switch marker >> 4 {
            case 0x4:
                try checkRange(next, count)
                return .data(Data(bytes[next..<(next + count)]))
            case 0x5:
                try checkRange(next, count)
                // Documented as ASCII; Latin-1 decoding accepts any byte without failing.
                return .string(String(decoding: bytes[next..<(next + count)].map { UInt16($0) }, as: UTF16.self))
            default:
                try checkRange(next, count, element: 2)
                var units: [UInt16] = []
                units.reserveCapacity(count)
                for position in stride(from: next, to: next + 2 * count, by: 2) {
                    units.append(UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1]))
                }
                return .string(String(decoding: units, as: UTF16.self))
            }
        }

        /// Runs `body` for a container, refusing excessive depth and a container that contains itself.
        mutating func container<T>(_ index: Int, depth: Int, _ body: (inout Parser) throws(BinaryPropertyListError) -> T) throws(BinaryPropertyListError) -> T {
            guard depth < BinaryPropertyListReader.maximumDepth else {
                throw BinaryPropertyListError("nested deeper than \(BinaryPropertyListReader.maximumDepth) levels")
            }
            guard visiting.insert(index).inserted else {
                throw BinaryPropertyListError("object \(index) contains itself")
            }
            defer { visiting.remove(index) }
            return try body(&self)
        }

        /// Reads the child at `reference` of a container, keeping the container's height up to date.
        mutating func child(_ reference: Int, depth: Int, height containerHeight: inout Int) throws(BinaryPropertyListError) -> PropertyList {
            let value = try object(reference, depth: depth)
            containerHeight = max(containerHeight, height + 1)
            return value
        }

        /// Remembers a container read whole, with its height, and leaves the height for the caller.
        mutating func remember(_ value: PropertyList, at index: Int, height containerHeight: Int, size: Int) -> PropertyList {
            parsed[index] = (value, containerHeight, size)
            height = containerHeight
            return value
        }
    }
}
