import CacheStore
import CacheStoreMemory
import Foundation
import FuzzSupport
import KeyedArchive
import TokenCache
import TokenCacheDisplay
import TokenCacheInterchange
import TokenCacheJSON
import TokenCacheSchema

// The whole chain a hostile file goes through: import it, then run every lookup, listing, dump and
// export on the result, and import each export again. Anything the schema accepts must never crash a
// later command; a crash anywhere in the chain is a finding. The first byte picks the import format
// (or detection); the rest is the file. Items an import writes must read back, and so must exports.
private let formats: [ImportFormat?] = [nil] + ImportFormat.allCases.map { $0 }
private let group = "com.microsoft.adalcache"

private func expectReadable(_ items: [StoreItem]) {
    for item in items {
        if item.generic == LegacyCacheKey.generic {
            do { _ = try LegacyTokenCacheItem(archive: item.data) } catch {
                fatalError("an imported legacy entry does not read back: \(error)")
            }
        } else if let type = item.type, CredentialType(typeCode: type) != nil || (1000...1004).contains(type)
            || type == ItemTypeCode.appMetadata
        {
            do { _ = try UnifiedItem(item) } catch {
                fatalError("an imported item does not read back: \(error)")
            }
        }
    }
}

private func exercise(_ store: MemoryStore) throws {
    let cache = try TokenCache(store: store)
    let accounts = try cache.accounts()
    _ = try cache.unreadableItems()
    _ = try cache.damagedItemCount()
    var clients: Set<String> = ["c"]
    var environments: Set<String> = ["login.microsoftonline.com"]
    for item in try store.allItems() {
        if let credential = try? Credential(storeItem: item) {
            if let client = credential.clientId { clients.insert(client) }
            if let environment = credential.environment { environments.insert(environment) }
        }
        // Dump, hidden and revealed, and its text.
        for reveal in [false, true] {
            let view = PayloadView.object(for: item, revealSecrets: reveal)
            _ = PayloadView.prettyPrinted(.object(view))
        }
    }
    for account in accounts {
        _ = try cache.account(identifier: account.homeAccountId)
        if let username = account.username { _ = try cache.account(username: username) }
        for client in clients.prefix(4) {
            _ = try cache.accounts(clientId: client)
            for subject in [RefreshTokenQuery.Subject.homeAccountId(account.homeAccountId)] + (account.username.map { [.username($0)] } ?? []) {
                for family in [nil, "1"] as [String?] {
                    _ = try cache.refreshToken(RefreshTokenQuery(subject: subject, clientId: client, familyId: family))
                }
            }
            _ = try cache.familyRefreshToken(homeAccountId: account.homeAccountId, clientId: client)
            _ = try cache.appMetadata(clientId: client)
            for environment in environments.prefix(4) {
                _ = try cache.idToken(homeAccountId: account.homeAccountId, clientId: client, environment: environment)
                for profile in account.tenantProfiles.prefix(3) {
                    if let found = try cache.accessToken(AccessTokenQuery(
                        homeAccountId: account.homeAccountId, environment: environment, realm: profile.realm, clientId: client,
                        scopes: []))
                    {
                        _ = JSONValue.object(found.credential.jsonObject).serialized(sortingKeys: true)
                        _ = found.expiresOn.formatted(.iso8601)
                        _ = found.refreshOn?.formatted(.iso8601)
                    }
                }
            }
        }
    }
    let interchange = try CacheInterchange(store: store, accessGroup: group)
    for format in ExportFormat.allCases {
        let (data, _) = try interchange.export(format)
        let again = try MemoryStore(accessGroups: AccessGroups([group]))
        let importFormat = ImportFormat(rawValue: format.rawValue)
        do {
            _ = try CacheInterchange(store: again, accessGroup: group).importData(data, source: "export", format: importFormat)
        } catch {
            fatalError("the \(format) export does not import again: \(error)")
        }
    }
}

fuzzMain { data in
    guard let selector = data.first else { return }
    let format = formats[Int(selector) % formats.count]
    let file = Data(data.dropFirst())
    guard let store = try? MemoryStore(accessGroups: AccessGroups([group])),
        let decoded = try? ImportDecoder.decode(file, source: "fuzz", format: format, accessGroup: group)
    else { return }
    // Keychain items are raw store items, kept byte for byte (a payload that does not decode is the
    // engine's unreadable item, not the importer's); every other format's items are written by us.
    if decoded.format != .keychainItems { expectReadable(decoded.items) }
    guard (try? CacheInterchange(store: store, accessGroup: group).importData(file, source: "fuzz", format: format)) != nil else { return }
    do {
        try exercise(store)
    } catch {
        // Typed errors are answers, not findings; only a crash or a hang is.
    }
}
