import Foundation
import KeyedArchive
import Testing

/// Archives built to exhaust memory or time through shared references.
@Suite struct HostileArchiveRegressionTests {
    /// A keyed archive whose object k is an NSArray holding object k-1 twice: `levels` objects
    /// stand for 2^(levels+1) values. Before the value budget, 17 levels decoded into a quarter of a
    /// million values and 60 levels — a few KB of input — never finished.
    static func doublingArchive(levels: Int) -> Data {
        var objects: [PropertyList] = [
            .string("$null"),
            .dictionary([("$classname", .string("NSArray")), ("$classes", .array([.string("NSArray"), .string("NSObject")]))]),
            .dictionary([("$class", .uid(1)), ("NS.objects", .array([]))]),
        ]
        for _ in 0..<levels {
            let previous = UInt64(objects.count - 1)
            objects.append(.dictionary([("$class", .uid(1)), ("NS.objects", .array([.uid(previous), .uid(previous)]))]))
        }
        return BinaryPropertyListWriter.write(.dictionary([
            ("$version", .integer(100000)),
            ("$archiver", .string("NSKeyedArchiver")),
            ("$top", .dictionary([("root", .uid(UInt64(objects.count - 1)))])),
            ("$objects", .array(objects)),
        ]))
    }

    @Test func sharedReferencesCannotExpandPastTheValueBudget() throws {
        // 2^18 values: over the budget (100,000), refused instead of built.
        #expect(KeyedArchive.maximumValues == 100_000)
        #expect(throws: KeyedArchiveError.self) { try KeyedArchive.decode(Self.doublingArchive(levels: 17)) }
        // 2^16 fit, and decode.
        _ = try KeyedArchive.decode(Self.doublingArchive(levels: 15))
    }

    @Test func sixtyDoublingsFailAtOnce() throws {
        let start = ContinuousClock.now
        #expect(throws: KeyedArchiveError.self) { try KeyedArchive.decode(Self.doublingArchive(levels: 60)) }
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}
