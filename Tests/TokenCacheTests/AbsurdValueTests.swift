import CacheStore
import CacheStoreMemory
import Foundation
import KeyedArchive
import TokenCache
import TokenCacheSchema
import Testing

/// Numbers and dates a file can hold that no clock ever shows: refused where they are read, clamped
/// where they are computed, and never a crash of a later lookup.
@Suite struct AbsurdValueTests {
    static let absurdDates: [Double] = [1e300, -1e300, .nan, .infinity, -.infinity, 9.3e18, -9.3e18, 253_402_300_800]

    /// A legacy ADAL refresh-token entry for the fixture user with `cachedAt` set to `seconds`, its
    /// archive written by hand (the model's own writer clamps such dates).
    static func legacyArchive(cachedAt seconds: Double, field: String = "cachedAt") throws -> StoreItem {
        let item = LegacyADALTests.legacyEntry(clientId: IDs.appA)
        let sane = item.storeItem(accessGroup: IDs.group)
        guard case .object(var root) = try KeyedArchive.decode(sane.data) else { throw CancellationError() }
        root.fields.removeAll { $0.key == field }
        root.fields.append(.init(field, .date(Date(timeIntervalSince1970: seconds))))
        var planted = sane
        planted.data = KeyedArchive.encode(root: .object(root))
        return planted
    }

    @Test(arguments: absurdDates)
    func aLegacyEntryWithAnAbsurdDateIsRefusedNotTrapped(_ seconds: Double) throws {
        for field in ["cachedAt", "expiresOn"] {
            let planted = try Self.legacyArchive(cachedAt: seconds, field: field)
            #expect(throws: SchemaError.self) { try LegacyTokenCacheItem(archive: planted.data) }
            let fixture = try CacheFixture()
            try fixture.put(planted)
            // Before: Int64(Double) on the stored date trapped (SIGILL) here.
            #expect(try fixture.cache.refreshToken(RefreshTokenQuery(subject: .username(LegacyADALTests.fixtureUser), clientId: IDs.appA)) == nil)
            _ = try fixture.cache.accounts()
            #expect(try fixture.cache.unreadableItems().count == 1)
        }
    }

    @Test func theWriterClampsWhatTheReaderWouldRefuse() throws {
        for seconds in Self.absurdDates {
            var item = LegacyADALTests.legacyEntry(clientId: IDs.appA)
            item.cachedAt = Date(timeIntervalSince1970: seconds)
            item.expiresOn = Date(timeIntervalSince1970: seconds)
            item.additionalServer = .dictionary([("extended_expires_on", .date(Date(timeIntervalSince1970: seconds)))])
            let read = try LegacyTokenCacheItem(archive: item.archiveData)
            let cachedAt = try #require(read.cachedAt)
            #expect(UnixTime.isValid(cachedAt))
        }
    }

    @Test(arguments: ["9223372036854775807", "-9223372036854775808", "253402300800", "-62135596801", "1e300"])
    func aTimestampOutsideTheYearsOneTo9999IsRefused(_ text: String) throws {
        let json = #"{"credential_type":"AccessToken","secret":"s","client_id":"c","home_account_id":"h","environment":"e","realm":"r","target":"t","expires_on":"\#(text)","cached_at":"1"}"#
        #expect(throws: SchemaError.self) { try Credential(jsonData: Data(json.utf8)) }
        let stored = StoreItem(accessGroup: IDs.group, account: "h-e", service: "accesstoken-c-r-t", type: 2001, data: Data(json.utf8))
        let fixture = try CacheFixture()
        try fixture.put(stored)
        #expect(try fixture.cache.accessToken(AccessTokenQuery(homeAccountId: "h", environment: "e", realm: "r", clientId: "c", scopes: ["t"])) == nil)
        #expect(try fixture.cache.unreadableItems().count == 1)
        // A credential built in code with such a time is not written (the reader would refuse it).
        var credential = try Credential(jsonData: Data(json.replacingOccurrences(of: text, with: "1700000000").utf8))
        credential.expiresOn = .max
        #expect(throws: SchemaError.self) { try credential.storeItem(accessGroup: IDs.group) }
    }

    @Test func theEdgesOfTheRangeAreAccepted() throws {
        for seconds in [UnixTime.range.lowerBound, UnixTime.range.upperBound] {
            let json = #"{"credential_type":"RefreshToken","secret":"s","client_id":"c","home_account_id":"h","environment":"e","cached_at":"\#(seconds)"}"#
            #expect(try Credential(jsonData: Data(json.utf8)).cachedAt == seconds)
        }
    }

    @Test func lifetimesThatOverflowAreClampedWhenSaved() throws {
        let fixture = try CacheFixture()
        // Before: `now + expires_in` overflowed Int64 and trapped.
        try fixture.save(TokenResponses.aad(expiresIn: .max, extendedExpiresIn: .max, refreshIn: .max))
        let found = try #require(try fixture.cache.accessToken(AccessTokenQuery(
            homeAccountId: IDs.home, environment: "login.microsoftonline.com", realm: IDs.homeTenant, clientId: IDs.appA,
            scopes: ["User.Read"])))
        #expect(found.credential.expiresOn == UnixTime.range.upperBound)
        try fixture.save(TokenResponses.aad(expiresIn: .min, extendedExpiresIn: .min, refreshIn: .min))
    }

    @Test func aClockOutsideTheRangeDoesNotTrap() throws {
        for seconds in [1e300, -1e300, Double.nan] {
            let store = MemoryStore(accessGroups: try AccessGroups([IDs.group]))
            let cache = try TokenCache(store: store, configuration: .init(clock: { Date(timeIntervalSince1970: seconds) }))
            _ = try cache.save(TokenResponses.aad(), for: CacheFixture.request())
            _ = try cache.accessToken(AccessTokenQuery(
                homeAccountId: IDs.home, environment: "login.microsoftonline.com", realm: IDs.homeTenant, clientId: IDs.appA,
                scopes: ["User.Read"]))
        }
    }
}
