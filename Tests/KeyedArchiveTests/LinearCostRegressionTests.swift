import Foundation
import KeyedArchive
import Testing

/// Decoding work is linear in the input: an object referenced many times is decoded once, its
/// members scanned once, and the limits on the expanded graph still hold for shared objects.
@Suite struct LinearCostRegressionTests {
    static func archive(_ objects: [PropertyList], root: Int) -> Data {
        BinaryPropertyListWriter.write(.dictionary([
            ("$version", .integer(100000)),
            ("$archiver", .string("NSKeyedArchiver")),
            ("$top", .dictionary([("root", .uid(UInt64(root)))])),
            ("$objects", .array(objects)),
        ]))
    }

    static func classDescription(_ name: String) -> PropertyList {
        .dictionary([("$classname", .string(name)), ("$classes", .array([.string(name), .string("NSObject")]))])
    }

    /// One NSDate object with `keys` members, its `NS.time` and `$class` last, referenced `references`
    /// times by the root array. Before, every reference scanned all members twice: 200,000 keys ×
    /// 20,000 references took minutes (the issue's 400,000 × 49,000, 8–9 MB, took 165–477 s).
    static func wideSharedObject(keys: Int, references: Int) -> Data {
        var members: [(key: String, value: PropertyList)] = (0..<keys).map { ("k\($0)", .integer(0)) }
        members.append(("NS.time", .real(0)))
        members.append(("$class", .uid(1)))
        let objects: [PropertyList] = [
            .string("$null"), classDescription("NSDate"), .dictionary(members), classDescription("NSArray"),
            .dictionary([("NS.objects", .array(Array(repeating: .uid(2), count: references))), ("$class", .uid(3))]),
        ]
        return archive(objects, root: 4)
    }

    @Test func aWideObjectReferencedManyTimesIsDecodedOnce() throws {
        let data = Self.wideSharedObject(keys: 200_000, references: 20_000)
        guard case .array(_, let values) = try KeyedArchive.decode(data) else {
            Issue.record("the root is not an array")
            return
        }
        #expect(values.count == 20_000)
        #expect(values.allSatisfy { $0 == .date(Date(timeIntervalSinceReferenceDate: 0)) })
    }

    @Test func aWideClassDescriptionSharedByManyObjectsIsReadOnce() throws {
        var description: [(key: String, value: PropertyList)] = (0..<200_000).map { ("c\($0)", .integer(0)) }
        description.append(("$classname", .string("NSDate")))
        var objects: [PropertyList] = [.string("$null"), .dictionary(description), Self.classDescription("NSArray")]
        for second in 0..<20_000 { objects.append(.dictionary([("NS.time", .real(Double(second))), ("$class", .uid(1))])) }
        objects.append(.dictionary([("NS.objects", .array((3..<(3 + 20_000)).map { .uid(UInt64($0)) })), ("$class", .uid(2))]))
        guard case .array(_, let values) = try KeyedArchive.decode(Self.archive(objects, root: objects.count - 1)) else {
            Issue.record("the root is not an array")
            return
        }
        #expect(values.count == 20_000)
    }

    /// A chain `height` arrays deep, shared: first reached near the root, then under `wrappers`
    /// more arrays. The second reference nests past the limit, although the chain was decoded before.
    @Test func aSharedObjectStillCountsItsDepthWhereverItIsReferenced() throws {
        func build(height: Int, wrappers: Int) -> Data {
            var objects: [PropertyList] = [.string("$null"), LinearCostRegressionTests.classDescription("NSArray")]
            objects.append(.dictionary([("NS.objects", .array([])), ("$class", .uid(1))]))
            for _ in 0..<height { objects.append(.dictionary([("NS.objects", .array([.uid(UInt64(objects.count - 1))])), ("$class", .uid(1))])) }
            let chain = objects.count - 1
            for _ in 0..<wrappers { objects.append(.dictionary([("NS.objects", .array([.uid(UInt64(objects.count - 1))])), ("$class", .uid(1))])) }
            let wrapped = objects.count - 1
            objects.append(.dictionary([("NS.objects", .array([.uid(UInt64(chain)), .uid(UInt64(wrapped))])), ("$class", .uid(1))]))
            return LinearCostRegressionTests.archive(objects, root: objects.count - 1)
        }
        _ = try KeyedArchive.decode(build(height: 100, wrappers: 20))
        #expect(throws: KeyedArchiveError.self) { try KeyedArchive.decode(build(height: 100, wrappers: 40)) }
    }

    /// A shared object still counts every time toward the value budget.
    @Test func aSharedObjectCountsTowardTheBudgetEachTime() throws {
        let members: [PropertyList] = (0..<1_000).map { _ in .uid(2) }
        var objects: [PropertyList] = [.string("$null"), Self.classDescription("NSArray"), .string("leaf")]
        objects.append(.dictionary([("NS.objects", .array(members)), ("$class", .uid(1))]))
        objects.append(.dictionary([("NS.objects", .array(Array(repeating: .uid(3), count: 200))), ("$class", .uid(1))]))
        #expect(throws: KeyedArchiveError.self) { try KeyedArchive.decode(Self.archive(objects, root: 4)) }
        objects[4] = .dictionary([("NS.objects", .array(Array(repeating: .uid(3), count: 90))), ("$class", .uid(1))])
        _ = try KeyedArchive.decode(Self.archive(objects, root: 4))
    }

    /// A string `$null` that is not object 0 is a string: what the writer writes for it reads back.
    @Test func aDollarNullStringReadsBackAsAString() throws {
        let root = ArchivedValue.array(className: "NSArray", [.string("$null"), .null])
        #expect(try KeyedArchive.decode(KeyedArchive.encode(root: root)) == root)
    }
}
