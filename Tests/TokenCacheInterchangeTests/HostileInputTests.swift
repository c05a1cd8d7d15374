import CacheStore
import CacheStoreMemory
import Foundation
import TestSupport
import Testing
import TokenCacheInterchange
import TokenCacheSchema

/// Truncated, random and hostile inputs end in a typed error — never a crash, a hang, or a change
/// to the store.
@Suite struct HostileInputTests {
    /// A store holding one item, to show that a failed import leaves it as it was.
    static func seededStore() throws -> MemoryStore {
        let store = try newStore()
        try store.save(StoreItem(accessGroup: group, account: "keep", service: "me", type: 2002, data: Data(#"{"secret":"s"}"#.utf8)))
        return store
    }

    /// Imports `data`; returns the error, or nil when it imported. Fails on any other error type.
    static func outcome(_ data: Data, into store: MemoryStore, format: ImportFormat? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> InterchangeError? {
        do {
            _ = try CacheInterchange(store: store).importData(data, source: "hostile.json", format: format)
            return nil
        } catch let error as InterchangeError {
            #expect(error.description.hasPrefix("hostile.json"), sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("untyped or unexpected error \(type(of: error)): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test(arguments: ["msal-dotnet/ExpectedTokenCache.json", "msal-node/cache.json", "msal-dotnet/cachecompat_dotnet_dictionary.bin"])
    func everyTruncationFailsCleanlyAndChangesNothing(_ file: String) throws {
        let data = try fixture(file)
        var store = try Self.seededStore()
        let before = try store.allItems()
        var failures = 0
        var cut = 0
        while cut < data.count {
            if Self.outcome(data.prefix(cut), into: store) != nil {
                failures += 1
                #expect(try store.allItems() == before)
            } else {
                // Only a prefix that lacks nothing but trailing whitespace is a whole document.
                #expect(data[cut...].allSatisfy { [0x20, 0x0A, 0x0D, 0x09].contains($0) })
                store = try Self.seededStore()
            }
            cut += max(1, data.count / 300)
        }
        #expect(failures > 0)
    }

    @Test func truncationErrorsSayWhere() throws {
        let data = try fixture("msal-dotnet/ExpectedTokenCache.json")
        let store = try newStore()
        let error = try #require(Self.outcome(data.prefix(2000), into: store))
        guard case .malformedJSON(_, let parse) = error else {
            Issue.record("expected a JSON error, got \(error)")
            return
        }
        #expect(parse.reason == .unexpectedEnd)
        #expect(error.description.contains("line "))
    }

    @Test func randomBytesAndMutatedFixturesNeverCrash() throws {
        var generator = SplitMix64(seed: 0x7C0FFEE)
        let store = try Self.seededStore()
        let before = try store.allItems()
        for length in [0, 1, 2, 7, 64, 4096] {
            for _ in 0..<40 {
                let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
                _ = Self.outcome(bytes, into: store)
            }
        }
        let alphabet = Array(#"{}[]",:0123456789.-eEtrufalsn \u"#.utf8)
        for _ in 0..<300 {
            let bytes = Data((0..<Int.random(in: 1...200, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            _ = Self.outcome(bytes, into: store)
        }
        let original = try fixture("msal-node/cache.json")
        for _ in 0..<300 {
            var mutated = [UInt8](original)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                mutated[index] = alphabet.randomElement(using: &generator)!
            }
            let mutatedStore = try newStore()
            if Self.outcome(Data(mutated), into: mutatedStore) != nil {
                #expect(try mutatedStore.allItems().isEmpty)
            }
        }
        #expect(try store.allItems() == before)
    }

    // How long these take is measured by benchmarks and bounded by the readers' budgets, never
    // asserted here: a loaded machine would make a timing assertion fail for no fault of the code.
    @Test func deepNestingIsRefused() throws {
        let store = try newStore()
        for opener in ["[", "{\"a\":"] {
            let deep = Data(String(repeating: opener, count: 200_000).utf8)
            let error = try #require(Self.outcome(deep, into: store))
            guard case .malformedJSON(_, let parse) = error, case .tooDeep = parse.reason else {
                Issue.record("expected a depth error, got \(error)")
                continue
            }
        }
        // Nesting inside an entry's unknown field, within the limit, is kept as data.
        let nested = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        let entry = #"{"RefreshToken": {"k": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "s", "x": NESTED}}}"#
        #expect(Self.outcome(Data(entry.replacingOccurrences(of: "NESTED", with: nested).utf8), into: store) == nil)
    }

    @Test func hugeInputsAreHandled() throws {
        // 50,000 entries import in one batch.
        var text = #"{"AccessToken": {"#
        for index in 0..<50_000 {
            if index > 0 { text += "," }
            text += #""k\#(index)": {"home_account_id": "uid.utid", "environment": "login.windows.net", "credential_type": "AccessToken", "client_id": "c", "realm": "t", "target": "scope\#(index)", "secret": "s\#(index)", "expires_on": "9999999999"}"#
        }
        text += "}}"
        let store = try newStore()
        let report = try CacheInterchange(store: store).importData(Data(text.utf8), source: "big.json")
        #expect(report.imported == 50_000)

        // A secret over the store's 16 MiB payload limit fails the whole batch.
        let big = String(repeating: "A", count: 17 << 20)
        let oversized = #"{"RefreshToken": {"a": {"home_account_id": "h", "environment": "e", "client_id": "c", "secret": "small"}, "b": {"home_account_id": "h2", "environment": "e", "client_id": "c", "secret": "\#(big)"}}}"#
        let target = try newStore()
        #expect(throws: CacheStoreError.self) { try CacheInterchange(store: target).importData(Data(oversized.utf8), source: "big.json") }
        #expect(try target.allItems().isEmpty)

        // Over the import limit: refused before parsing.
        #expect(throws: InterchangeError.tooLarge(source: "x", size: ImportDecoder.sizeLimit + 1, limit: ImportDecoder.sizeLimit)) {
            _ = try ImportDecoder.decode(Data(count: ImportDecoder.sizeLimit + 1), source: "x", accessGroup: group)
        }
    }

    struct WrongType: Sendable, CustomTestStringConvertible {
        var document: String
        var place: String
        var format: ImportFormat? = nil
        var testDescription: String { place }
    }

    static let wrongTypes: [WrongType] = [
        WrongType(document: #"{"AccessToken": []}"#, place: "AccessToken: a section must be a JSON object"),
        WrongType(document: #"{"refreshtoken": "x"}"#, place: "refreshtoken: a section must be a JSON object"),
        WrongType(document: #"{"IdToken": {"k": "a string"}}"#, place: "IdToken 'k': must be a JSON object"),
        WrongType(document: #"{"RefreshToken": {"k": {"secret": {"SECRET-VALUE": 1}, "client_id": "c"}}}"#, place: "RefreshToken 'k': field 'secret'"),
        WrongType(document: #"{"RefreshToken": {"k": {"secret": "SECRET-VALUE", "client_id": ["c"]}}}"#, place: "RefreshToken 'k': field 'client_id'"),
        WrongType(document: #"{"AccessToken": {"k": {"secret": "SECRET-VALUE", "expires_on": true}}}"#, place: "AccessToken 'k': field 'expires_on'"),
        WrongType(document: #"{"AccessToken": {"k": {"secret": "SECRET-VALUE", "expires_on": "tomorrow"}}}"#, place: "AccessToken 'k': field 'expires_on'"),
        WrongType(document: #"{"AccessToken": {"k": {"secret": "SECRET-VALUE", "cached_at": 1e999}}}"#, place: "AccessToken 'k': field 'cached_at'"),
        WrongType(document: #"{"AccessToken": {"k": {"secret": "SECRET-VALUE", "target": ["a", 1]}}}"#, place: "AccessToken 'k': field 'target'"),
        WrongType(document: #"{"Account": {"k": {"authority_type": {"x": 1}, "username": "u"}}}"#, place: "Account 'k': field 'authority_type'"),
        WrongType(document: #"{"AppMetadata": {"k": {"client_id": 5.5e3, "family_id": []}}}"#, place: "AppMetadata 'k': field 'family_id'"),
        WrongType(document: #"[{"Key": "access_tokens", "Value": "x"}]"#, place: "[0].Value: must be an array", format: .msalV2),
        WrongType(document: #"[{"Key": 1, "Value": []}]"#, place: "[0].Key: must be a string", format: .msalV2),
        WrongType(document: #"[{"Key": "refresh_tokens", "Value": [1]}]"#, place: "refresh_tokens[0]: must be a string", format: .msalV2),
        WrongType(document: #"[{"Key": "refresh_tokens", "Value": ["{\"secret\": "]}]"#, place: "refresh_tokens[0]: the string is not valid JSON", format: .msalV2),
        WrongType(document: #"[{"Key": "accounts", "Value": ["[]"]}]"#, place: "accounts[0]: must be a JSON object", format: .msalV2),
        WrongType(document: #"[{"access_group": "g", "account": 1, "service": "s", "data": ""}]"#, place: "item 0: field 'account'"),
        WrongType(document: #"[1, 2]"#, place: "not in a format tokencache imports"),
        WrongType(document: #""just a string""#, place: "not in a format tokencache imports"),
        WrongType(document: #"{"a": 1}"#, place: "a keychain-items document is a JSON array", format: .keychainItems),
        WrongType(document: #"[]"#, place: "not MSAL JSON", format: .msalJSON),
    ]

    @Test(arguments: wrongTypes)
    func wrongTypesNameTheirPlaceAndNoSecret(_ input: WrongType) throws {
        let store = try Self.seededStore()
        let error = try #require(Self.outcome(Data(input.document.utf8), into: store, format: input.format))
        #expect(error.description.contains(input.place), "\(error)")
        #expect(!error.description.contains("SECRET-VALUE"))
        #expect(error.isDataError)
        #expect(try store.allItems().count == 1)
    }
}
