import Foundation

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
        BinaryPropertyListReader.isBinaryPropertyList(data) && data.range(of: Data("NSKeyedArchiver".utf8)) != nil
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

    private struct GraphDecoder {
        let objects: [PropertyList]
        var visiting: Set<UInt64> = []
        var produced = 0

        /// Resolves a field value: a UID is followed; inline scalars are taken as they are.
        mutating func value(_ plist: PropertyList, depth: Int) throws(KeyedArchiveError) -> ArchivedValue {
            guard depth < KeyedArchive.maximumDepth else {
                throw .malformed("objects nested deeper than \(KeyedArchive.maximumDepth) levels")
            }
            produced += 1
            guard produced <= KeyedArchive.maximumValues else {
                throw .malformed("the object graph expands to more than \(KeyedArchive.maximumValues) values")
            }
            switch plist {
            case .uid(let uid):
                return try object(uid, depth: depth)
            default:
                return try scalar(plist)
            }
        }

        func scalar(_ plist: PropertyList) throws(KeyedArchiveError) -> ArchivedValue {
            switch plist {
            case .bool(let flag): return .bool(flag)
            case .integer(let number): return .integer(number)
            case .real(let number): return .real(number)
            case .date(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .data(let bytes): return .data(bytes)
            case .string(let text): return text == "$null" ? .null : .string(text)
            case .array, .dictionary, .uid: throw .malformed("a container where a scalar was expected")
            }
        }

        mutating func object(_ uid: UInt64, depth: Int) throws(KeyedArchiveError) -> ArchivedValue {
            guard uid < UInt64(objects.count) else { throw .malformed("reference \(uid) past the \(objects.count) objects") }
            if uid == 0 { return .null }
            let plist = objects[Int(uid)]
            guard case .dictionary(let members) = plist else { return try scalar(plist) }
            guard case .uid(let classUID)? = plist["$class"] else {
                throw .malformed("object \(uid) has no $class")
            }
            guard visiting.insert(uid).inserted else { throw .malformed("object \(uid) contains itself") }
            defer { visiting.remove(uid) }
            let (className, classes) = try classDescription(classUID)

            func references(_ key: String) throws(KeyedArchiveError) -> [PropertyList] {
                guard case .array(let list)? = plist[key] else {
                    throw .malformed("\(className) object \(uid) has no \(key) array")
                }
                return list
            }
            switch className {
            case "NSString", "NSMutableString":
                guard let text = plist["NS.string"] else { throw .malformed("\(className) object \(uid) has no NS.string") }
                return try value(text, depth: depth + 1)
            case "NSDate":
                switch plist["NS.time"] {
                case .real(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: seconds))
                case .integer(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
                default: throw .malformed("NSDate object \(uid) has no NS.time number")
                }
            case "NSData", "NSMutableData":
                guard case .data(let bytes)? = plist["NS.data"] else { throw .malformed("\(className) object \(uid) has no NS.data") }
                return .data(bytes)
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                var values: [ArchivedValue] = []
                for reference in try references("NS.objects") { values.append(try value(reference, depth: depth + 1)) }
                return .array(className: className, values)
            case "NSDictionary", "NSMutableDictionary":
                let keyReferences = try references("NS.keys")
                let valueReferences = try references("NS.objects")
                guard keyReferences.count == valueReferences.count else {
                    throw .malformed("\(className) object \(uid) has \(keyReferences.count) keys and \(valueReferences.count) values")
                }
                var keys: [ArchivedValue] = []
                var values: [ArchivedValue] = []
                for (key, value) in zip(keyReferences, valueReferences) {
                    keys.append(try self.value(key, depth: depth + 1))
                    values.append(try self.value(value, depth: depth + 1))
                }
                return .dictionary(className: className, keys: keys, values: values)
            default:
                var fields: [ArchivedObject.Field] = []
                for member in members where member.key != "$class" {
                    fields.append(.init(member.key, try value(member.value, depth: depth + 1)))
                }
                return .object(ArchivedObject(className: className, classes: classes, fields: fields))
            }
        }

        func classDescription(_ uid: UInt64) throws(KeyedArchiveError) -> (String, [String]) {
            guard uid < UInt64(objects.count), case .string(let name)? = objects[Int(uid)]["$classname"] else {
                throw .malformed("class description \(uid) has no $classname")
            }
            var classes: [String] = []
            if case .array(let list)? = objects[Int(uid)]["$classes"] {
                for case .string(let entry) in list { classes.append(entry) }
            }
            return (name, classes.isEmpty ? [name] : classes)
        }
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
