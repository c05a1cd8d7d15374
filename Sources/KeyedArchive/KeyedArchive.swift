#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads and writes `NSKeyedArchiver` archives (binary plists with `$objects`, `$top` and UIDs) by
/// walking the object graph, without registering or instantiating classes.
///
/// On Linux, Foundation's `NSKeyedUnarchiver` aborts on an unknown class unless told otherwise, and
/// its archiver cannot write arbitrary class names; this codec does neither, so it is safe for
/// untrusted input and writes the class names Apple's libraries expect.
public enum KeyedArchive {
    /// The deepest object nesting accepted when decoding.
    public static let maximumDepth = 128

    /// The most values a decoded archive may expand to. Objects are shared by reference, so a
    /// graph of a few hundred bytes can stand for billions of values; past this many, decoding fails.
    public static let maximumValues = 100_000

    /// Decodes the archive's root object (`$top.root`).
    public static func decode(_ data: Data) throws(KeyedArchiveError) -> ArchivedValue {
        let plist: PropertyList
        do {
            plist = try BinaryPropertyListReader.read(data)
        } catch {
            throw .propertyList(error)
        }
        guard plist["$archiver"] == .string("NSKeyedArchiver") else {
            throw .malformed("$archiver is not NSKeyedArchiver")
        }
        guard case .array(let objects)? = plist["$objects"] else { throw .malformed("no $objects array") }
        guard case .uid(let root)? = plist["$top"]?["root"] else { throw .malformed("no $top.root reference") }
        var decoder = GraphDecoder(objects: objects)
        return try decoder.value(.uid(root), depth: 0)
    }

    /// Whether `data` looks like a keyed archive (a binary plist naming `NSKeyedArchiver`).
    public static func isKeyedArchive(_ data: Data) -> Bool {
        BinaryPropertyListReader.isBinaryPropertyList(data) && data.firstRange(of: "NSKeyedArchiver".utf8) != nil
    }

    /// Encodes `root` as Apple's `NSKeyedArchiver` would: `$version` 100000, `$top.root`, `$objects`
    /// starting with `$null`, one class description per class name.
    ///
    /// In an ``ArchivedObject``'s fields, booleans and numbers are written inline (as
    /// `encodeBool:forKey:` does); inside arrays and dictionaries they are `NSNumber` objects.
    public static func encode(root: ArchivedValue) -> Data {
        var encoder = GraphEncoder()
        let reference = encoder.reference(root)
        let archive: PropertyList = .dictionary([
            ("$version", .integer(100000)),
            ("$archiver", .string("NSKeyedArchiver")),
            ("$top", .dictionary([("root", reference)])),
            ("$objects", .array(encoder.objects)),
        ])
        return BinaryPropertyListWriter.write(archive)
    }

    private struct GraphEncoder {
        var objects: [PropertyList] = [.string("$null")]
        var classes: [String: UInt64] = [:]
        var strings: [String: UInt64] = [:]

        mutating func append(_ plist: PropertyList) -> PropertyList {
            objects.append(plist)
            return .uid(UInt64(objects.count - 1))
        }

        mutating func classReference(_ name: String, chain: [String]) -> PropertyList {
            if let existing = classes[name] { return .uid(existing) }
            let reference = append(.dictionary([
                ("$classname", .string(name)),
                ("$classes", .array(chain.map(PropertyList.string))),
            ]))
            if case .uid(let uid) = reference { classes[name] = uid }
            return reference
        }

        /// A reference to `value` stored in `$objects` (numbers too: this is the NSNumber form).
        mutating func reference(_ value: ArchivedValue) -> PropertyList {
            switch value {
            case .null:
                return .uid(0)
            case .bool(let flag):
                return append(.bool(flag))
            case .integer(let number):
                return append(.integer(number))
            case .real(let number):
                return append(.real(number))
            case .string(let text):
                if let existing = strings[text] { return .uid(existing) }
                let reference = append(.string(text))
                if case .uid(let uid) = reference { strings[text] = uid }
                return reference
            case .data(let bytes):
                return append(.data(bytes))
            case .date(let date):
                let slot = append(.string("$null"))
                let classRef = classReference("NSDate", chain: ["NSDate", "NSObject"])
                objects[index(slot)] = .dictionary([
                    ("NS.time", .real(date.timeIntervalSinceReferenceDate)), ("$class", classRef),
                ])
                return slot
            case .array(let className, let values):
                let slot = append(.string("$null"))
                let references = values.map { reference($0) }
                let classRef = classReference(className, chain: Self.foundationChain(className))
                objects[index(slot)] = .dictionary([("NS.objects", .array(references)), ("$class", classRef)])
                return slot
            case .dictionary(let className, let keys, let values):
                let slot = append(.string("$null"))
                let keyReferences = keys.map { reference($0) }
                let valueReferences = values.map { reference($0) }
                let classRef = classReference(className, chain: Self.foundationChain(className))
                objects[index(slot)] = .dictionary([
                    ("NS.keys", .array(keyReferences)), ("NS.objects", .array(valueReferences)), ("$class", classRef),
                ])
                return slot
            case .object(let object):
                let slot = append(.string("$null"))
                var members: [(key: String, value: PropertyList)] = []
                for field in object.fields {
                    switch field.value {
                    case .bool(let flag): members.append((field.key, .bool(flag)))
                    case .integer(let number): members.append((field.key, .integer(number)))
                    case .real(let number): members.append((field.key, .real(number)))
                    default: members.append((field.key, reference(field.value)))
                    }
                }
                members.append(("$class", classReference(object.className, chain: object.classes)))
                objects[index(slot)] = .dictionary(members)
                return slot
            }
        }

        /// `$classes` as Foundation writes it: `NSMutableDictionary` → `NSDictionary` → `NSObject`.
        static func foundationChain(_ className: String) -> [String] {
            guard className.hasPrefix("NSMutable") else { return [className, "NSObject"] }
            return [className, "NS" + className.dropFirst("NSMutable".count), "NSObject"]
        }

        func index(_ reference: PropertyList) -> Int {
            guard case .uid(let uid) = reference else { preconditionFailure("append returns a UID") }
            return Int(uid)
        }
    }
}
