import CacheStore
import Foundation
import TokenCache
import TokenCacheSchema
import Testing

/// `removeAccount` and `wipeAccount` (docs/formats/keychain-and-adal-objc.md §4.7, §4.8, §1.8).
@Suite struct RemovalTests {
    let fixture: CacheFixture
    init() throws { fixture = try CacheFixture(applicationName: "com.contoso.mail") }

    func credentialsByClient(_ home: String = IDs.home) throws -> [String: [UInt32]] {
        var result: [String: [UInt32]] = [:]
        for item in try fixture.allItems() where (2000...2009).contains(item.type ?? 0) {
            let json = try payload(item)
            guard json["home_account_id"]?.stringValue == home else { continue }
            result[json["client_id"]?.stringValue ?? "", default: []].append(item.type!)
        }
        return result.mapValues { $0.sorted() }
    }

    func wipeRecords() throws -> [StoreItem] {
        try fixture.store.items(matching: ItemQuery(account: "TokenWipe", type: .absent))
    }

    @Test func removeAccountDeletesOnlyThisAppsCredentials() throws {
        try fixture.save(TokenResponses.aad(refreshToken: "rt-a", foci: "1"), clientId: IDs.appA)
        // B's save overwrites the family copy (same key), which now names B.
        try fixture.save(TokenResponses.aad(refreshToken: "rt-b", foci: "1"), clientId: IDs.appB)
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"), clientId: IDs.appA)
        #expect(try credentialsByClient()[IDs.appA] == [2001, 2002, 2003])
        #expect(try credentialsByClient()[IDs.appB] == [2001, 2002, 2002, 2003])

        let result = try fixture.cache.removeAccount(homeAccountId: IDs.home.uppercased(), clientId: IDs.appA)
        #expect(result.deleted.count == 3)
        #expect(result.markedSignedOut)
        #expect(result.wroteWipeRecord)

        let left = try credentialsByClient()
        #expect(left[IDs.appA] == nil)
        #expect(left[IDs.appB] == [2001, 2002, 2002, 2003], "B's tokens and the family copy stay")
        #expect(try credentialsByClient(IDs.home2)[IDs.appA] == [2001, 2002, 2003], "another account is untouched")
        #expect(try fixture.items(type: 1003).count == 2, "account records stay")
        #expect(try fixture.items(type: 3001).count == 2, "app metadata stays")
    }

    @Test func removeAccountDeletesTheFamilyCopyThisAppWrote() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB) != nil)
        try fixture.cache.removeAccount(homeAccountId: IDs.home, clientId: IDs.appA)
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appB) == nil)
        #expect(try fixture.items(type: 2002).isEmpty)
    }

    @Test func removedAccountIsSignedOutForThisAppOnly() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appB)
        try fixture.cache.removeAccount(homeAccountId: IDs.home, clientId: IDs.appA)

        let own = try fixture.item(account: "\(IDs.home)-login.windows.net", service: IDs.appA, type: 9001)
        #expect(try payload(own)["sign_in_state"]?.stringValue == "signed_out")
        #expect(try fixture.items(type: 5001).isEmpty)
        // B's family copy remains, yet A no longer lists the account; B still does.
        #expect(try fixture.cache.familyRefreshToken(homeAccountId: IDs.home, clientId: IDs.appA) != nil)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).isEmpty)
        #expect(try fixture.cache.accounts(clientId: IDs.appB).count == 1)
        #expect(try fixture.cache.accounts().count == 1)

        // Signing in again brings it back.
        try fixture.save(clientId: IDs.appA)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).count == 1)
    }

    @Test func removingRefreshTokensWritesTheWipeRecord() throws {
        try fixture.save()
        try fixture.cache.removeAccount(homeAccountId: IDs.home, clientId: IDs.appA)
        let records = try wipeRecords()
        let record = try #require(records.count == 1 ? records.first : nil)
        #expect(record.type == nil)
        #expect(record.service == "")
        #expect(text(record.generic) == "Microsoft.ADAL.WipeAll.1")
        #expect(record.data.starts(with: Data("bplist00".utf8)), "a binary property list")

        var format = PropertyListSerialization.PropertyListFormat.xml
        let plist = try PropertyListSerialization.propertyList(from: record.data, options: [], format: &format)
        #expect(format == .binary)
        let archive = try #require(plist as? [String: Any])
        #expect(archive["$archiver"] as? String == "NSKeyedArchiver")
        #expect(archive["$top"] != nil)
        let objects = try #require(archive["$objects"] as? [Any])
        let strings = objects.compactMap { $0 as? String }
        #expect(strings.contains("bundleId"))
        #expect(strings.contains("wipeTime"))
        #expect(strings.contains("com.contoso.mail"))
        // Apple readers decode by class name: an NSDictionary holding an NSString and an NSDate.
        let dictionaries = objects.compactMap { $0 as? [String: Any] }
        let classNames = Set(dictionaries.compactMap { $0["$classname"] as? String })
        #expect(classNames.isSuperset(of: ["NSDictionary", "NSDate"]))
        let times = dictionaries.compactMap { ($0["NS.time"] as? NSNumber)?.doubleValue }
        #expect(times == [fixture.clock.now.timeIntervalSinceReferenceDate], "wipeTime is the removal time")
    }

    @Test func removalWithoutRefreshTokensWritesNoWipeRecord() throws {
        try fixture.save(TokenResponses.aad(refreshToken: nil))
        let result = try fixture.cache.removeAccount(homeAccountId: IDs.home, clientId: IDs.appA)
        #expect(!result.wroteWipeRecord)
        #expect(try wipeRecords().isEmpty)
        #expect(try fixture.items(type: 2001).isEmpty)
    }

    @Test func wipeAccountRemovesEveryClientsCredentialsAndAccountsInEveryCloud() throws {
        try fixture.save(TokenResponses.aad(foci: "1"), clientId: IDs.appA)
        try fixture.save(TokenResponses.aad(), clientId: IDs.appB)
        try fixture.save(TokenResponses.aad(), authority: "https://login.chinacloudapi.cn/common", clientId: IDs.appC)
        try fixture.save(
            TokenResponses.aad(tid: IDs.guestTenant, utid: IDs.homeTenant),
            authority: "https://login.microsoftonline.com/\(IDs.guestTenant)", clientId: IDs.appA)
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"), clientId: IDs.appB)
        #expect(try fixture.items(type: 1003).count == 4)

        let result = try fixture.cache.wipeAccount(homeAccountId: IDs.home)
        #expect(result.wroteWipeRecord)
        #expect(try credentialsByClient().isEmpty)
        let accounts = try fixture.items(type: 1003)
        #expect(accounts.map(\.account) == ["\(IDs.home2)-login.windows.net"])
        #expect(try credentialsByClient(IDs.home2)[IDs.appB]?.count == 3)
        #expect(try fixture.cache.accounts().map(\.homeAccountId) == [IDs.home2])
        #expect(try fixture.items(type: 3001).count == 3, "app metadata is never removed")
        #expect(try wipeRecords().count == 1)
    }
}
