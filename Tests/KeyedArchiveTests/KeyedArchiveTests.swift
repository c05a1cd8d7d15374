import Foundation
import KeyedArchive
import TestSupport
import Testing

@Suite struct KeyedArchiveTests {
    static let fixtures = Fixtures.url("adal-objc")

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(name))
    }

    @Test(arguments: ["adal1x-token-cache-store-item.bplist", "adal1x-keychain-item.bplist"])
    func decodesTheADAL1xFixtures(name: String) throws {
        let root = try KeyedArchive.decode(try Self.fixture(name))
        guard case .object(let item) = root else {
            Issue.record("root is not an object: \(root)")
            return
        }
        #expect(item.className == "ADTokenCacheStoreItem")
        #expect(item.classes == ["ADTokenCacheStoreItem", "NSObject"])
        #expect(item["authority"] == .string("https://login.microsoftonline.com/common"))
        #expect(item["clientId"] == .string("27AD83C9-FC05-4A6C-AF01-36EDA42ED18F"))
        #expect(item["accessToken"] == .string("<access token>"))
        #expect(item["accessTokenType"] == .string("Bearer"))
        #expect(item["refreshToken"] == .string("<refresh token>"))
        #expect(item["expiresOn"] == .date(Date(timeIntervalSinceReferenceDate: 1_000_000)))
        #expect(item["resource"] == (name.contains("keychain") ? .string("<resource>") : .null))
        guard case .object(let user)? = item["userInformation"] else {
            Issue.record("no userInformation object")
            return
        }
        #expect(user.className == "ADUserInformation")
        #expect(user["userId"] == .string("myfakeuser@contoso.com"), "an NSMutableString reads as a string")
        #expect(user["userIdDisplayable"] == .bool(true))
        let rawIdToken = try #require(user["rawIdToken"]?.stringValue)
        #expect(!rawIdToken.contains("."))
        #expect(user["allClaims"]?["upn"] == .string("myfakeuser@contoso.com"))
        #expect(user["allClaims"]?["iat"] == .integer(1_387_224_169))
    }

    @Test func writtenArchivesReadBackIdentically() throws {
        let root: ArchivedValue = .object(ArchivedObject(className: "ADTokenCacheStoreItem", fields: [
            .init("resource", .null),
            .init("authority", .string("https://login.windows.net/common")),
            .init("expiresOn", .date(Date(timeIntervalSinceReferenceDate: 123_456.5))),
            .init("additionalClient", .dictionary([], className: "NSMutableDictionary")),
            .init("additionalServer", .dictionary([("ext_expires_on", .date(Date(timeIntervalSinceReferenceDate: 7))), ("n", .integer(-5))])),
            .init("userInformation", .object(ArchivedObject(className: "ADUserInformation", fields: [
                .init("rawIdToken", .string("eyJ0eXAiOiJKV1QifQ.e30.")),
                .init("userIdDisplayable", .bool(true)),
                .init("list", .array(className: "NSArray", [.string("a"), .string("a"), .real(1.5), .data(Data([0, 1]))])),
                .init("unicode", .string("Zoë 名前 🔑")),
            ]))),
        ]))
        let data = KeyedArchive.encode(root: root)
        #expect(BinaryPropertyListReader.isBinaryPropertyList(data))
        #expect(try KeyedArchive.decode(data) == root)
    }

    @Test func foundationReadsWhatWeWrite() throws {
        let root: ArchivedValue = .dictionary([
            ("bundleId", .string("tokencache")),
            ("wipeTime", .date(Date(timeIntervalSince1970: 1_700_000_000))),
            ("count", .integer(3)),
            ("names", .array(className: "NSArray", [.string("a"), .string("b")])),
        ])
        let data = KeyedArchive.encode(root: root)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        let decoded = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary)
        #expect(decoded["bundleId"] as? String == "tokencache")
        #expect((decoded["wipeTime"] as? Date)?.timeIntervalSince1970 == 1_700_000_000)
        #expect((decoded["count"] as? NSNumber)?.intValue == 3)
        #expect((decoded["names"] as? [String]) == ["a", "b"])
    }

    @Test func weReadWhatFoundationWrites() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        let dictionary: NSDictionary = ["k": "v" as NSString, "d": NSDate(timeIntervalSinceReferenceDate: 42), "n": NSNumber(value: 7)]
        archiver.encode(dictionary, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let decoded = try KeyedArchive.decode(archiver.encodedData)
        #expect(decoded["k"] == .string("v"))
        #expect(decoded["d"] == .date(Date(timeIntervalSinceReferenceDate: 42)))
        #expect(decoded["n"] == .integer(7))
    }

    @Test func binaryPlistsRoundTripEveryType() throws {
        let long = String(repeating: "x", count: 300)
        let value: PropertyList = .dictionary([
            ("bools", .array([.bool(true), .bool(false)])),
            ("ints", .array([.integer(0), .integer(255), .integer(256), .integer(70_000), .integer(5_000_000_000), .integer(-1), .integer(.min)])),
            ("real", .real(-2.5)), ("date", .date(1_000_000)), ("data", .data(Data(count: 20))),
            ("ascii", .string(long)), ("utf16", .string("ünïcødé ✓")), ("uid", .uid(300)),
            ("many", .array((0..<40).map { .integer(Int64($0)) })),
        ])
        #expect(try BinaryPropertyListReader.read(BinaryPropertyListWriter.write(value)) == value)
    }
}

/// Truncated, random and hostile inputs end in a typed error, never a crash or a hang.
@Suite struct HostileArchiveTests {
    @Test func everyTruncationOfTheFixtureFailsCleanly() throws {
        let data = try KeyedArchiveTests.fixture("adal1x-keychain-item.bplist")
        for length in 0..<data.count {
            #expect(throws: KeyedArchiveError.self) { try KeyedArchive.decode(data.prefix(length)) }
        }
    }

    @Test func randomByteFlipsNeverCrash() throws {
        let original = try KeyedArchiveTests.fixture("adal1x-token-cache-store-item.bplist")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var data = original
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let position = Int.random(in: 0..<data.count, using: &generator)
                data[position] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? KeyedArchive.decode(data)
        }
    }

    @Test func randomBytesAreRejected() {
        var generator = SystemRandomNumberGenerator()
        for size in [0, 1, 8, 40, 41, 100, 4096] {
            var data = Data("bplist00".utf8)
            data += Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(throws: KeyedArchiveError.self) { try KeyedArchive.decode(data) }
        }
    }

    /// A trailer claiming 2^60 objects and a length prefix claiming 2^62 bytes.
    @Test func hugeCountsAreRejectedWithoutAllocating() throws {
        var data = Data("bplist00".utf8)
        data += [0x4F, 0x13] + [0x40, 0, 0, 0, 0, 0, 0, 0]  // data object, 8-byte length 2^62
        let tableOffset = data.count
        data += [8]
        data += [0, 0, 0, 0, 0, 0, 1, 1]
        data += [0x10, 0, 0, 0, 0, 0, 0, 0]  // object count 2^60
        data += [0, 0, 0, 0, 0, 0, 0, 0]
        data += [0, 0, 0, 0, 0, 0, 0, UInt8(tableOffset)]
        #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyListReader.read(data) }
        // With a sane object count, the length prefix itself is refused.
        data.replaceSubrange((data.count - 24)..<(data.count - 16), with: [0, 0, 0, 0, 0, 0, 0, 1])
        #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyListReader.read(data) }
    }

    @Test func selfContainingAndDeeplyNestedContainersAreRejected() throws {
        // An array whose only element is itself.
        var data = Data("bplist00".utf8)
        data += [0xA1, 0x00]
        data += [8]
        data += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 10]
        #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyListReader.read(data) }

        // 1,000 nested arrays.
        var nested: PropertyList = .array([])
        for _ in 0..<1000 { nested = .array([nested]) }
        #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyListReader.read(BinaryPropertyListWriter.write(nested)) }
    }

    @Test func exponentialSharingIsBounded() throws {
        // 40 levels, each an array of the level below twice: 2^40 values if expanded.
        var data = Data("bplist00".utf8)
        var offsets: [Int] = []
        offsets.append(data.count)
        data += [0x08]  // object 0: false
        for level in 1...40 {
            offsets.append(data.count)
            data += [0xA2, UInt8(level - 1), UInt8(level - 1)]
        }
        let table = data.count
        data += offsets.map { UInt8($0 >> 8) }.indices.flatMap { [UInt8(offsets[$0] >> 8), UInt8(offsets[$0] & 0xFF)] }
        data += [0, 0, 0, 0, 0, 0, 2, 1]
        data += [0, 0, 0, 0, 0, 0, 0, 41] + [0, 0, 0, 0, 0, 0, 0, 40]
        data += [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)]
        #expect {
            try BinaryPropertyListReader.read(data)
        } throws: { error in
            (error as? BinaryPropertyListError)?.reason.contains("expands to more than") == true
        }
    }

    @Test func wellFormedPlistsThatAreNotArchivesAreRejected() {
        let notArchive = BinaryPropertyListWriter.write(.dictionary([("$objects", .array([]))]))
        #expect(throws: KeyedArchiveError.self) { try KeyedArchive.decode(notArchive) }
        let dangling = BinaryPropertyListWriter.write(.dictionary([
            ("$archiver", .string("NSKeyedArchiver")), ("$top", .dictionary([("root", .uid(99))])),
            ("$objects", .array([.string("$null")])),
        ]))
        #expect(throws: KeyedArchiveError.self) { try KeyedArchive.decode(dangling) }
        let selfReferencing = BinaryPropertyListWriter.write(.dictionary([
            ("$archiver", .string("NSKeyedArchiver")), ("$top", .dictionary([("root", .uid(1))])),
            ("$objects", .array([
                .string("$null"),
                .dictionary([("me", .uid(1)), ("$class", .uid(2))]),
                .dictionary([("$classname", .string("Loop")), ("$classes", .array([.string("Loop")]))]),
            ])),
        ]))
        #expect(throws: KeyedArchiveError.self) { try KeyedArchive.decode(selfReferencing) }
    }
}
