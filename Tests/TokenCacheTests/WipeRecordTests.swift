import CacheStore
import Foundation
import KeyedArchive
import Testing
@testable import TokenCache

/// The wipe record is written with the project's own keyed-archive encoder; it must be the archive
/// Foundation's `NSKeyedArchiver` writes for the same `NSDictionary` (which is what MSAL and ADAL read).
@Suite struct WipeRecordTests {
    let application = "com.contoso.mail"
    let time = Date(timeIntervalSinceReferenceDate: 786_000_000.25)

    var foundationArchive: Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        let record: NSDictionary = ["bundleId": application as NSString, "wipeTime": time as NSDate]
        archiver.encode(record, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    var written: Data { WipeRecord(application: application, time: time).storeItem(accessGroup: "g").data }

    /// The archive's property list with every UID resolved to the object it names and every
    /// dictionary's members sorted (Foundation writes the keys of the archive and of an NSDictionary
    /// in hash order, which changes from run to run): everything a reader can see, in one text.
    func resolved(_ data: Data) throws -> String {
        let plist = try BinaryPropertyListReader.read(data)
        guard case .array(let objects)? = plist["$objects"] else { throw Missing.objects }
        func describe(_ value: PropertyList, depth: Int) -> String {
            if depth > 16 { return "…" }
            switch value {
            case .uid(let uid): return Int(uid) < objects.count ? describe(objects[Int(uid)], depth: depth + 1) : "bad uid"
            case .string(let text): return "\"\(text)\""
            case .array(let values): return "[" + values.map { describe($0, depth: depth + 1) }.joined(separator: ",") + "]"
            case .dictionary(let members):
                var parts = members.filter { $0.key != "NS.keys" && $0.key != "NS.objects" }
                    .map { "\($0.key):\(describe($0.value, depth: depth + 1))" }
                if case .array(let keys)? = value["NS.keys"], case .array(let values)? = value["NS.objects"] {
                    parts += zip(keys, values).map { "\(describe($0.0, depth: depth + 1))=\(describe($0.1, depth: depth + 1))" }
                }
                return "{" + parts.sorted().joined(separator: ",") + "}"
            default: return "\(value)"
            }
        }
        return describe(plist, depth: 0)
    }

    enum Missing: Error { case objects }

    @Test func isTheArchiveFoundationWrites() throws {
        let ours = try resolved(written)
        #expect(ours == (try resolved(foundationArchive)))
        #expect(ours.contains("NS.time:real(786000000.25)"))
        #expect(ours.contains("$classname:\"NSDictionary\""))
        // As many objects: nothing written twice that Foundation shares, nothing left out.
        guard case .array(let ourObjects)? = try BinaryPropertyListReader.read(written)["$objects"],
              case .array(let theirObjects)? = try BinaryPropertyListReader.read(foundationArchive)["$objects"]
        else { throw Missing.objects }
        #expect(ourObjects.count == theirObjects.count)
    }

    @Test func readsBackWithFoundationAndWithKeyedArchive() throws {
        let record = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSDictionary.self, NSString.self, NSDate.self], from: written) as? NSDictionary)
        #expect(record["bundleId"] as? String == application)
        #expect(record["wipeTime"] as? Date == time)
        let decoded = try KeyedArchive.decode(written)
        let theirs = try KeyedArchive.decode(foundationArchive)
        #expect(decoded == theirs || decoded == reordered(theirs))
        #expect(decoded["bundleId"] == .string(application))
        #expect(decoded["wipeTime"] == .date(time))
    }

    /// Foundation's dictionary with its two members the other way round.
    func reordered(_ value: ArchivedValue) -> ArchivedValue {
        guard case .dictionary(let name, let keys, let values) = value else { return value }
        return .dictionary(className: name, keys: keys.reversed(), values: values.reversed())
    }
}
