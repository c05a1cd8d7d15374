#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The walk of a keyed archive's `$objects` from `$top.root`, without instantiating classes.
///
/// Each object is decoded once and shared wherever it is referenced (with how many values it
/// expands to and how deep it nests, so the limits on the expanded graph still hold), each class
/// description is read once, and each object's members are scanned once: the work is linear in the
/// input, whatever the graph's shape.
struct GraphDecoder {
    let objects: [PropertyList]
    private var visiting: Set<UInt64> = []
    /// Values of the expanded graph so far (a shared object counts every time it is referenced).
    private var produced = 0
    /// Objects decoded so far: the value, how many values it expands to, and the height of its nesting.
    private var decoded: [UInt64: (value: ArchivedValue, size: Int, height: Int)] = [:]
    private var classDescriptions: [UInt64: (name: String, classes: [String])] = [:]
    /// The height of the value last returned by ``value(_:depth:)`` (0 for a scalar).
    private var height = 0

    init(objects: [PropertyList]) {
        self.objects = objects
    }

    /// Resolves a field value: a UID is followed; inline scalars are taken as they are.
    mutating func value(_ plist: PropertyList, depth: Int) throws(KeyedArchiveError) -> ArchivedValue {
        guard depth < KeyedArchive.maximumDepth else {
            throw .malformed("objects nested deeper than \(KeyedArchive.maximumDepth) levels")
        }
        height = 0
        guard case .uid(let uid) = plist else {
            try count(1)
            return try scalar(plist)
        }
        if let known = decoded[uid] {
            guard depth + known.height < KeyedArchive.maximumDepth else {
                throw .malformed("objects nested deeper than \(KeyedArchive.maximumDepth) levels")
            }
            try count(known.size)
            height = known.height
            return known.value
        }
        let before = produced
        try count(1)
        var objectHeight = 0
        let value = try object(uid, depth: depth, height: &objectHeight)
        decoded[uid] = (value, produced - before, objectHeight)
        height = objectHeight
        return value
    }

    private mutating func count(_ values: Int) throws(KeyedArchiveError) {
        produced += values
        guard produced <= KeyedArchive.maximumValues else {
            throw .malformed("the object graph expands to more than \(KeyedArchive.maximumValues) values")
        }
    }

    /// A child of the object being decoded, keeping that object's height up to date.
    private mutating func child(_ plist: PropertyList, depth: Int, height objectHeight: inout Int) throws(KeyedArchiveError) -> ArchivedValue {
        let value = try value(plist, depth: depth)
        objectHeight = max(objectHeight, height + 1)
        return value
    }

    private func scalar(_ plist: PropertyList) throws(KeyedArchiveError) -> ArchivedValue {
        switch plist {
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .date(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .data(let bytes): return .data(bytes)
        // Only the reference to object 0 means nil; a string "$null" elsewhere is a string, so that
        // any string written reads back as itself.
        case .string(let text): return .string(text)
        case .array, .dictionary, .uid: throw .malformed("a container where a scalar was expected")
        }
    }

    /// The members a Foundation class is read from, found in one pass over an object's members
    /// (the first of each name counts, as the binary plist's own lookup would have it).
    private struct KnownMembers {
        var classReference: PropertyList?
        var string: PropertyList?
        var time: PropertyList?
        var data: PropertyList?
        var objects: PropertyList?
        var keys: PropertyList?

        init(_ members: [(key: String, value: PropertyList)]) {
            for member in members {
                switch member.key {
                case "$class": if classReference == nil { classReference = member.value }
                case "NS.string": if string == nil { string = member.value }
                case "NS.time": if time == nil { time = member.value }
                case "NS.data": if data == nil { data = member.value }
                case "NS.objects": if objects == nil { objects = member.value }
                case "NS.keys": if keys == nil { keys = member.value }
                default: break
                }
            }
        }
    }

    private mutating func object(_ uid: UInt64, depth: Int, height objectHeight: inout Int) throws(KeyedArchiveError) -> ArchivedValue {
        guard uid < UInt64(objects.count) else { throw .malformed("reference \(uid) past the \(objects.count) objects") }
        if uid == 0 { return .null }
        let plist = objects[Int(uid)]
        guard case .dictionary(let members) = plist else { return try scalar(plist) }
        let known = KnownMembers(members)
        guard case .uid(let classUID)? = known.classReference else {
            throw .malformed("object \(uid) has no $class")
        }
        guard visiting.insert(uid).inserted else { throw .malformed("object \(uid) contains itself") }
        defer { visiting.remove(uid) }
        let (className, classes) = try classDescription(classUID)

        func references(_ list: PropertyList?, _ key: String) throws(KeyedArchiveError) -> [PropertyList] {
            guard case .array(let list)? = list else {
                throw .malformed("\(className) object \(uid) has no \(key) array")
            }
            return list
        }
        switch className {
        case "NSString", "NSMutableString":
            guard let text = known.string else { throw .malformed("\(className) object \(uid) has no NS.string") }
            return try child(text, depth: depth + 1, height: &objectHeight)
        case "NSDate":
            switch known.time {
            case .real(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .integer(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
            default: throw .malformed("NSDate object \(uid) has no NS.time number")
            }
        case "NSData", "NSMutableData":
            guard case .data(let bytes)? = known.data else { throw .malformed("\(className) object \(uid) has no NS.data") }
            return .data(bytes)
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            var values: [ArchivedValue] = []
            for reference in try references(known.objects, "NS.objects") {
                values.append(try child(reference, depth: depth + 1, height: &objectHeight))
            }
            return .array(className: className, values)
        case "NSDictionary", "NSMutableDictionary":
            let keyReferences = try references(known.keys, "NS.keys")
            let valueReferences = try references(known.objects, "NS.objects")
            guard keyReferences.count == valueReferences.count else {
                throw .malformed("\(className) object \(uid) has \(keyReferences.count) keys and \(valueReferences.count) values")
            }
            var keys: [ArchivedValue] = []
            var values: [ArchivedValue] = []
            for (key, value) in zip(keyReferences, valueReferences) {
                keys.append(try child(key, depth: depth + 1, height: &objectHeight))
                values.append(try child(value, depth: depth + 1, height: &objectHeight))
            }
            return .dictionary(className: className, keys: keys, values: values)
        default:
            var fields: [ArchivedObject.Field] = []
            for member in members where member.key != "$class" {
                fields.append(.init(member.key, try child(member.value, depth: depth + 1, height: &objectHeight)))
            }
            return .object(ArchivedObject(className: className, classes: classes, fields: fields))
        }
    }

    private mutating func classDescription(_ uid: UInt64) throws(KeyedArchiveError) -> (String, [String]) {
        if let known = classDescriptions[uid] { return known }
        guard uid < UInt64(objects.count), case .dictionary(let members) = objects[Int(uid)] else {
            throw .malformed("class description \(uid) has no $classname")
        }
        var name: String?
        var list: [PropertyList]?
        for member in members {
            if member.key == "$classname", name == nil, case .string(let text) = member.value { name = text }
            if member.key == "$classes", list == nil, case .array(let entries) = member.value { list = entries }
            if name != nil && list != nil { break }
        }
        guard let name else { throw .malformed("class description \(uid) has no $classname") }
        var classes: [String] = []
        for case .string(let entry) in list ?? [] { classes.append(entry) }
        let description = (name, classes.isEmpty ? [name] : classes)
        classDescriptions[uid] = description
        return description
    }
}
