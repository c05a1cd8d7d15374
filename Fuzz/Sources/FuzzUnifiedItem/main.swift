import CacheStore
import Foundation
import FuzzSupport
@_spi(Indexing) import TokenCacheSchema

// The unified item payload decoder. The first bytes choose the item's attributes (a type code
// among the unified ones, an untyped item, or an arbitrary code; a generic); the rest is the payload.
// Any payload must decode or throw SchemaError; an item that decodes must give a store item that
// decodes again. For credentials, the partial read an index makes must accept exactly what the full
// read accepts, with the same indexed fields; accounts (read in one pass when they can be) must
// read as the full read reads them.
private let typeCodes: [UInt32?] = [
    nil, 1000, 1001, 1002, 1003, 1004, 2000, 2001, 2002, 2003, 2004, 2005, 2006, 2007, 2008, 2009,
    3001, 5001, 0, 999, 2010, 4000,
]

fuzzMain { data in
    guard let selector = data.first else { return }
    let type = typeCodes[Int(selector) % typeCodes.count]
    let generic: Data? = switch (selector >> 5) & 3 {
    case 0: nil
    case 1: Data(UnifiedItem.legacyADALGeneric.utf8)
    case 2: Data("fuzz".utf8)
    default: Data()
    }
    let payload = Data(data.dropFirst())
    let item = StoreItem(
        accessGroup: "com.microsoft.adalcache", account: "uid.utid-login.microsoftonline.com",
        service: "accesstoken-client-realm-scope", generic: generic, type: type, data: payload)
    if let type, CredentialType(typeCode: type) != nil {
        let full = try? Credential(storeItem: item)
        let partial = try? Credential(indexing: item)
        precondition((full == nil) == (partial == nil), "the partial read and the full read disagree on accepting the item")
        if let full, let partial {
            precondition(
                full.credentialType == partial.credentialType && full.clientId == partial.clientId
                    && full.homeAccountId == partial.homeAccountId && full.environment == partial.environment
                    && full.realm == partial.realm && full.target == partial.target && full.familyId == partial.familyId
                    && full.cachedAt == partial.cachedAt && full.expiresOn == partial.expiresOn
                    && full.extendedExpiresOn == partial.extendedExpiresOn && full.refreshOn == partial.refreshOn
                    && full.tokenType == partial.tokenType && full.keyId == partial.keyId
                    && full.requestedClaims == partial.requestedClaims
                    && full.applicationIdentifier == partial.applicationIdentifier && full.isTombstone == partial.isTombstone,
                "the partial read gives other indexed fields than the full read")
        }
    }
    let decoded = try? UnifiedItem(item)
    if let type, AccountType(typeCode: type) != nil {
        // UnifiedItem reads accounts in one pass when it can: it must answer as the full read does.
        let full = try? Account(storeItem: item)
        if case .account(let account) = decoded {
            precondition(full == account, "the one-pass account read disagrees with the full read")
        } else {
            precondition(full == nil, "the full read reads an account UnifiedItem does not")
        }
    }
    guard let unified = decoded else { return }
    _ = unified.key
    let stored: StoreItem?
    do {
        stored = try unified.storeItem(accessGroup: "com.microsoft.adalcache")
    } catch {
        return  // a decoded item that cannot be written is refused with an error: fine
    }
    if let stored {
        do {
            let again = try UnifiedItem(stored)
            precondition(again.key == unified.key, "round trip changed the item's key")
        } catch {
            fatalError("a stored item does not decode again: \(error)")
        }
    }
    return
}
