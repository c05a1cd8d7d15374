import CacheStore
import CacheStoreEncryption
import CacheStoreMemory
import CacheStoreSQLite
import Foundation
import TokenCacheJSON
import TokenCacheSchema
import TestSupport
import Testing

@testable import TokenCache

/// The shortcuts the lookups take (issue 6) answer exactly as the plain rules would.
@Suite struct ScopeSetTests {
    /// The plain rules: split on spaces, trim, lower-case, drop blanks and repeats.
    static func reference(_ target: String) -> [String] {
        var scopes: [String] = []
        for part in target.split(separator: " ") {
            let scope = part.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if !scope.isEmpty && !scopes.contains(scope) { scopes.append(scope) }
        }
        return scopes
    }

    static func randomTarget(_ generator: inout SplitMix64, asciiOnly: Bool) -> String {
        // Scopes are stored after their lengths, one byte up to 127, more beyond: scopes of 300 and
        // 17,000 bytes take two and three; one differs from the other only in its last byte.
        let long = "https://contoso.example/" + String(repeating: "Long.Scope/", count: 25)
        let longer = String(repeating: "X", count: 17_000)
        let words = [
            "User.Read", "user.read", "Mail.Read", "openid", "PROFILE", "offline_access", "a", "B", "Files.ReadWrite.All",
            long + "A", long.uppercased() + "a", long + "b", longer, longer + "x",
        ]
        let odd = ["é", "\u{212A}", "İ", "Straße", "\u{A0}"]
        let separators = [" ", "  ", " \t", "\n ", ""]
        var text = ""
        for _ in 0..<Int.random(in: 0...6, using: &generator) {
            text += separators.randomElement(using: &generator)!
            text += (!asciiOnly && Bool.random(using: &generator) ? odd : words).randomElement(using: &generator)!
        }
        return text + separators.randomElement(using: &generator)!
    }

    @Test func normalizesAsThePlainRulesDo() {
        var generator = SplitMix64(seed: 7)
        for round in 0..<5000 {
            let target = Self.randomTarget(&generator, asciiOnly: round.isMultiple(of: 2))
            #expect(ScopeSet(target).normalized == Self.reference(target), "\(Array(target.unicodeScalars))")
        }
    }

    @Test func containsAllMatchesTheSubsetRuleWithoutTheReservedScopes() {
        var generator = SplitMix64(seed: 11)
        for round in 0..<5000 {
            let target = Self.randomTarget(&generator, asciiOnly: round.isMultiple(of: 2))
            let requested = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                Self.randomTarget(&generator, asciiOnly: round.isMultiple(of: 3))
            }
            let wanted = Set(requested.flatMap { Self.reference($0) }).subtracting(ScopeSet.reserved)
            let expected = wanted.isSubset(of: Set(Self.reference(target)))
            #expect(ScopeSet(target).containsAll(requested: requested) == expected, "\(target) ⊇ \(requested)")
        }
    }

    @Test func intersectsWhenAScopeIsShared() {
        #expect(ScopeSet("User.Read Mail.Read").intersects(ScopeSet("mail.read")))
        #expect(!ScopeSet("User.Read").intersects(ScopeSet("User.ReadWrite")))
        #expect(!ScopeSet("").intersects(ScopeSet("a")))
        #expect(ScopeSet("K").intersects(ScopeSet("\u{212A}")))  // the Kelvin sign lower-cases to k
    }
}

@Suite struct LazyCredentialTests {
    static let group = "com.microsoft.adalcache"

    /// A credential stored by another library, with members this model does not know.
    static func foreignItem(secret: String) throws -> StoreItem {
        let payload: JSONObject = [
            "credential_type": "AccessToken", "secret": .string(secret), "home_account_id": .string(IDs.home),
            "environment": "login.windows.net", "client_id": .string(IDs.appA), "realm": .string(IDs.homeTenant),
            "target": "User.Read", "cached_at": "1700000000", "expires_on": "4102444800",
            "x_vendor_extension": .object(["kept": .array(["as", "is", .string(String(repeating: "long ", count: 10))])]),
        ]
        let credential = try Credential(jsonObject: payload)
        return try credential.storeItem(accessGroup: group)
    }

    @Test func aLookupReadsTheFullCredentialWithItsUnknownMembers() throws {
        let secret = "eyJ0eXAiOiJKV1QifQ." + String(repeating: "x", count: 2000)
        let store = MemoryStore(accessGroups: try AccessGroups([Self.group]))
        try store.save(try Self.foreignItem(secret: secret))
        let cache = try TokenCache(store: store, configuration: .init(clock: { Date(timeIntervalSince1970: 1_700_000_100) }))
        let query = AccessTokenQuery(homeAccountId: IDs.home, environment: "login.microsoftonline.com", realm: IDs.homeTenant,
                                     clientId: IDs.appA, scopes: ["user.read"])
        let found = try #require(try cache.accessToken(query))
        #expect(found.credential.secret == secret)
        guard case .array(let kept)? = found.credential.additionalFields["x_vendor_extension"]?.objectValue?["kept"] else {
            Issue.record("the unknown member was not kept")
            return
        }
        #expect(kept.count == 3)
        #expect(found.credential.jsonData == (try Self.foreignItem(secret: secret)).data)
        // Two lookups share the entry; results compare by content and place.
        let again = try #require(try cache.accessToken(query))
        #expect(again.stored == found.stored)
        #expect(Set([again.stored, found.stored]).count == 1)
    }

    @Test func aPayloadTheFullReadRejectsIsUnreadableNotIndexed() throws {
        let store = MemoryStore(accessGroups: try AccessGroups([Self.group]))
        var item = try Self.foreignItem(secret: "s")
        // A long invalid timestamp: the partial read keeps timestamps whole, so it rejects it too.
        item.data = Data(String(decoding: item.data, as: UTF8.self)
            .replacingOccurrences(of: "\"4102444800\"", with: "\"not a timestamp, and long enough to skip\"").utf8)
        try store.save(item)
        let cache = try TokenCache(store: store)
        #expect(try cache.unreadableItems().count == 1)
        #expect(try cache.accessToken(AccessTokenQuery(
            homeAccountId: IDs.home, environment: "login.windows.net", realm: IDs.homeTenant, clientId: IDs.appA, scopes: [])) == nil)
    }
}

@Suite struct RememberedListingTests {
    @Test func aListingFollowsEveryChange() throws {
        let fixture = try CacheFixture()
        let request = try CacheFixture.request()
        try fixture.cache.save(TokenResponses.aad(), for: request)
        let first = try fixture.cache.accounts(clientId: IDs.appA)
        #expect(first.map(\.homeAccountId) == [IDs.home])
        #expect(try fixture.cache.accounts(clientId: IDs.appA) == first)

        // A save by this engine, then one by another engine on the same store, as another process would.
        try fixture.cache.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"), for: request)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).map(\.homeAccountId) == [IDs.home, IDs.home2])
        let other = try TokenCache(store: fixture.store)
        try other.save(TokenResponses.aad(uid: "3c1d2e4f-0000-4000-8000-000000000003", username: "third@contoso.com"), for: request)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).count == 3)

        // Removal, and a listing for another app or environment, are answered on their own.
        try fixture.cache.removeAccount(homeAccountId: IDs.home2, clientId: IDs.appA)
        #expect(!(try fixture.cache.accounts(clientId: IDs.appA).map(\.homeAccountId)).contains(IDs.home2))
        #expect(try fixture.cache.accounts(clientId: IDs.appB).isEmpty)
        #expect(try fixture.cache.accounts(clientId: IDs.appA, environment: "login.chinacloudapi.cn").isEmpty)
    }
}

@Suite struct ChunkedOpenTests {
    /// More items than one chunk of the overlapped read: the index keeps the store's order.
    @Test func anEngineOpenedOnALargeSQLiteStoreSeesEveryItemInOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-chunked-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cache.sqlite").path
        let groups = try AccessGroups([IDs.group])
        let writer = try TokenCache(store: try SQLiteStore(path: path, accessGroups: groups))
        let request = try CacheFixture.request()
        var homes: [String] = []
        for index in 0..<200 {
            let uid = String(format: "%08x-0000-4000-8000-%012x", index, index)
            let saved = try writer.save(TokenResponses.aad(uid: uid, username: "user\(index)@contoso.com"), for: request)
            homes.append(saved.homeAccountId)
        }
        let store = try SQLiteStore(path: path, accessGroups: groups)
        #expect(try store.allItems().count > 600)
        let reader = try TokenCache(store: store)
        #expect(try reader.accounts(clientId: IDs.appA).map(\.homeAccountId) == homes)
        for (index, home) in homes.enumerated() where index % 37 == 0 {
            let token = try #require(try reader.accessToken(AccessTokenQuery(
                homeAccountId: home, environment: "login.microsoftonline.com", realm: "common", clientId: IDs.appA, scopes: ["User.Read"])))
            #expect(token.credential.secret == "access-token-secret")
            #expect(try reader.account(username: "USER\(index)@contoso.com")?.homeAccountId == home)
        }
    }
}

/// A store that hands its items over in chunks of uneven sizes, as the contract allows.
final class UnevenChunkStore: ItemStore {
    let base: MemoryStore
    var accessGroups: AccessGroups { base.accessGroups }

    init(_ base: MemoryStore) { self.base = base }

    func items(matching query: ItemQuery) throws -> [StoreItem] { try base.items(matching: query) }
    func apply(_ batch: [StoreOperation]) throws -> BatchResult { try base.apply(batch) }
    func applyPlanned(_ plan: (ChangeStamp, () throws -> [StoreItem]) throws -> [StoreOperation]) throws -> BatchResult {
        try base.applyPlanned(plan)
    }
    func changeStamp() throws -> ChangeStamp { try base.changeStamp() }

    func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws {
        let items = try base.allItems()
        let sizes = [1, 5, chunkSize, 3, chunkSize - 1]
        var start = 0
        var turn = 0
        while start < items.count {
            let end = min(items.count, start + max(1, min(chunkSize, sizes[turn % sizes.count])))
            receive(Array(items[start..<end]))
            start = end
            turn += 1
        }
    }
}

extension ChunkedOpenTests {
    @Test func chunksShorterThanAskedForAreIndexedInOrder() throws {
        let memory = MemoryStore(accessGroups: try AccessGroups([IDs.group]))
        let writer = try TokenCache(store: memory)
        let request = try CacheFixture.request()
        var homes: [String] = []
        for index in 0..<150 {
            let uid = String(format: "%08x-0000-4000-8000-%012x", index, index)
            homes.append(try writer.save(TokenResponses.aad(uid: uid, username: "user\(index)@contoso.com"), for: request).homeAccountId)
        }
        let reader = try TokenCache(store: UnevenChunkStore(memory))
        #expect(try reader.accounts(clientId: IDs.appA).map(\.homeAccountId) == homes)
        #expect(try reader.account(username: "User149@Contoso.com")?.homeAccountId == homes[149])
    }
}

extension ChunkedOpenTests {
    /// An encrypted store read in chunks gives the engine every item opened; a payload it cannot
    /// open fails the read with the store's own error.
    @Test func anEncryptedStoreIsReadInChunksAndItsErrorsSurface() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokencache-sealed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cache.sqlite").path
        let groups = try AccessGroups([IDs.group])
        let options = SQLiteStore.Options(encryption: .init(keySources: [KeyFile(path: directory.appendingPathComponent("keys").path)]))
        let writer = try TokenCache(store: try SQLiteStore(path: path, accessGroups: groups, options: options))
        let request = try CacheFixture.request()
        var homes: [String] = []
        for index in 0..<120 {
            let uid = String(format: "%08x-0000-4000-8000-%012x", index, index)
            homes.append(try writer.save(TokenResponses.aad(uid: uid, username: "user\(index)@contoso.com"), for: request).homeAccountId)
        }
        let reader = try TokenCache(store: try SQLiteStore(path: path, accessGroups: groups, options: options))
        #expect(try reader.accounts(clientId: IDs.appA).map(\.homeAccountId) == homes)
        let token = try #require(try reader.accessToken(AccessTokenQuery(
            homeAccountId: homes[77], environment: "login.windows.net", realm: "common", clientId: IDs.appA, scopes: ["User.Read"])))
        #expect(token.credential.secret == "access-token-secret")

        // Without its key, the sealed payloads cannot be opened: the engine says so, as the store would.
        let keyless = try TokenCache(store: try SQLiteStore(path: path, accessGroups: groups))
        #expect {
            _ = try keyless.accounts()
        } throws: { error in
            guard case EncryptionError.storeOpenedWithoutKey = error else { return false }
            return true
        }
    }
}
