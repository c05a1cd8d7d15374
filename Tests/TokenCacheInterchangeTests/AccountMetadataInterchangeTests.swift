import CacheStore
import CacheStoreMemory
import Foundation
import Testing
import TokenCache
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

/// MSAL ObjC's per-app account-metadata item (type 5001) is how the accounts' own sign-in items
/// (type 9001) travel: an import files its entries per account, an export folds them back into the
/// item MSAL ObjC writes.
@Suite struct AccountMetadataInterchangeTests {
    static let group = "com.microsoft.adalcache"
    static let environment = "login.microsoftonline.com"

    /// The shape of MSAL ObjC's own test item (MSIDAccountMetadataCacheItemTests), with a second
    /// account the store has no record of.
    static let msalObjCItem = #"""
        {"client_id":"MyClient","principal_home_account_id":"uid.utid","principal_username":"user@contoso.com","principal_account_environment":"login.microsoftonline.com","account_metadata_map":{"uid.utid":{"client_id":"MyClient","home_account_id":"uid.utid","sign_in_state":"signed_in","athority_map":{"URLMap-":{"https://login.microsoftonline.com/common":"https://login.microsoftonline.com/contoso.com"},"URLMap-instance_aware=YES":{"https://login.microsoftonline.com/common":"https://login.microsoftonline.de/contoso.com"}}},"gone.utid":{"client_id":"MyClient","home_account_id":"gone.utid","sign_in_state":"signed_out","athority_map":{}}}}
        """#

    static func store() throws -> MemoryStore {
        let store = MemoryStore(accessGroups: try AccessGroups([group]))
        let account = try Account(jsonObject: [
            "authority_type": "MSSTS", "home_account_id": "uid.utid", "environment": .string(environment),
            "realm": "utid", "local_account_id": "uid", "username": "user@contoso.com",
        ])
        try store.save(try account.storeItem(accessGroup: group))
        return store
    }

    static func keychainItems(_ payload: String) -> Data {
        KeychainItemsFormat.encode([StoreItem(
            accessGroup: group, account: "authority_map", service: "MyClient", generic: nil, type: 5001, data: Data(payload.utf8))])
    }

    static func signIns(_ store: any ItemStore) throws -> [AccountSignIn] {
        try store.items(matching: ItemQuery(type: .code(ItemTypeCode.accountSignIn))).map { try AccountSignIn(storeItem: $0) }
    }

    @Test func anImportedItemIsFiledPerAccountAndExportsAsItWas() throws {
        let store = try Self.store()
        let interchange = try CacheInterchange(store: store)
        _ = try interchange.importData(Self.keychainItems(Self.msalObjCItem), source: "test", format: .keychainItems)

        let own = try Self.signIns(store)
        #expect(own.count == 1)
        let signIn = try #require(own.first)
        #expect(signIn.key.account == "uid.utid-\(Self.environment)")
        #expect(signIn.entry.authorityMap[AccountMetadata.instanceAwareURLMapKey] == [
            "https://login.microsoftonline.com/common": "https://login.microsoftonline.de/contoso.com",
        ])
        // What cannot be filed stays in the app's item: the principal fields and the account the
        // store has no record of.
        let left = try AccountMetadata(storeItem: try #require(try store.items(matching: ItemQuery(type: .code(5001))).first))
        #expect(Array(left.accounts.keys) == ["gone.utid"])
        #expect(left.principalUsername == "user@contoso.com")

        let exported = try KeychainItemsFormat.decode(try interchange.export(.keychainItems).data, source: "export")
        #expect(!exported.contains { $0.type == ItemTypeCode.accountSignIn })
        let folded = exported.filter { $0.type == 5001 }
        let item = try #require(folded.count == 1 ? folded.first : nil)
        #expect(item.account == "authority_map" && item.service == "MyClient" && item.generic == nil)
        let original = try AccountMetadata(jsonData: Data(Self.msalObjCItem.utf8))
        #expect(try AccountMetadata(storeItem: item) == original)
        #expect(item.data == original.jsonData)
    }

    @Test func anImportedStateReplacesTheAccountsOwn() throws {
        let store = try Self.store()
        let entry = AccountMetadata.Entry(clientId: "MyClient", homeAccountId: "uid.utid", signInState: .signedIn)
        try store.save(try AccountSignIn(entry: entry, environment: Self.environment).storeItem(accessGroup: Self.group))
        let signedOut = #"{"client_id":"MyClient","account_metadata_map":{"uid.utid":{"client_id":"MyClient","home_account_id":"uid.utid","sign_in_state":"signed_out","athority_map":{}}}}"#
        _ = try CacheInterchange(store: store).importData(Self.keychainItems(signedOut), source: "test", format: .keychainItems)
        #expect(try Self.signIns(store).map(\.entry.signInState) == [.signedOut])
        #expect(try store.items(matching: ItemQuery(type: .code(5001))).isEmpty, "every entry filed, no principal fields")
        let engine = try TokenCache(store: store)
        #expect(try engine.accounts(clientId: "MyClient").isEmpty)
        #expect(try engine.accounts().count == 1)
    }

    @Test func anExportOfAStoreWithoutTheAppsItemMakesIt() throws {
        let store = try Self.store()
        let entry = AccountMetadata.Entry(clientId: "MyClient", homeAccountId: "uid.utid", signInState: .signedOut)
        try store.save(try AccountSignIn(entry: entry, environment: Self.environment).storeItem(accessGroup: Self.group))
        let exported = try KeychainItemsFormat.decode(try CacheInterchange(store: store).export(.keychainItems).data, source: "export")
        #expect(exported.map(\.type) == [1003, 5001])
        let metadata = try AccountMetadata(storeItem: exported[1])
        #expect(metadata == AccountMetadata(clientId: "MyClient", accounts: ["uid.utid": entry]))
    }
}
