import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Indexing) import TokenCacheSchema

/// Decoding a store item into what the index files: credentials read partially (their full read
/// waits for a lookup that returns one), other kinds read whole, unreadable items kept with the
/// reason.
extension CacheIndex {
    static func entry(for item: StoreItem, identity: ItemIdentity, sequence: Int) -> Entry {
        var none: StringInterner? = nil
        return entry(for: item, identity: identity, sequence: sequence, interner: &none)
    }

    /// With an `interner`, the strings of credentials read share storage with earlier ones (a whole
    /// cache is read with one interner per chunk).
    static func entry(for item: StoreItem, identity: ItemIdentity, sequence: Int, interner: inout StringInterner?) -> Entry {
        if let type = item.type, CredentialType(typeCode: type) != nil {
            // Credentials are most of a cache and are read partially here: the full read waits for
            // a lookup that returns one (CredentialBox).
            let credential: Credential
            let box: CredentialBox
            do {
                credential = try Credential(indexing: item, interner: &interner)
                box = CredentialBox(stored: item, identity: identity)
            } catch {
                // The full read names the problem exactly (the partial one may have met a placeholder).
                do {
                    credential = try Credential(storeItem: item)
                    box = CredentialBox(credential, identity: identity)
                } catch {
                    return .unreadable(error)
                }
            }
            if credential.isTombstone { return .tombstone }
            // An access token is found through the account attribute it is stored under (see
            // DeferredAccessTokens); one whose payload names another account could be found or not
            // depending on which accounts were asked for first, so it is never found.
            if DeferredAccessTokens.defers(type: type),
                ItemKey.account(homeAccountId: credential.homeAccountId, environment: credential.environment)
                    != ItemKey.normalized(identity.account)
            {
                return .unreadable(.invalidField(
                    "home_account_id", reason: "and environment do not make the item's account attribute", item: ItemReference(item)))
            }
            return .credential(IndexedCredential(credential, box: box, sequence: sequence))
        }
        let decoded: UnifiedItem
        do {
            decoded = try UnifiedItem(item)
        } catch {
            return .unreadable(error)
        }
        switch decoded {
        case .credential(let credential):
            if credential.isTombstone { return .tombstone }
            return .credential(IndexedCredential(credential, identity: identity, sequence: sequence))
        case .account(let account):
            return .account(IndexedAccount(account, identity: identity, sequence: sequence))
        case .appMetadata(let metadata):
            return .appMetadata(IndexedAppMetadata(metadata, identity: identity, sequence: sequence))
        case .accountMetadata(let metadata):
            return .accountMetadata(metadata)
        case .accountSignIn(let signIn):
            // Found through its partition, as access tokens are: one stored under another account
            // would be found or not depending on which partitions were loaded.
            guard signIn.key.account == identity.account, signIn.clientId == identity.service else {
                return .unreadable(.invalidField(
                    "home_account_id", reason: "and environment do not make the item's account attribute, or client_id is not its service",
                    item: ItemReference(item)))
            }
            return .accountSignIn(IndexedAccountSignIn(signIn, identity: identity, sequence: sequence))
        case .other(.legacyADAL):
            let legacy: LegacyTokenCacheItem
            do {
                legacy = try LegacyTokenCacheItem(archive: item.data)
            } catch {
                return .unreadable(error.attaching(ItemReference(item)))
            }
            // ADAL 2.x and IdentityCore delete tombstoned entries when they meet them.
            if legacy.isTombstone { return .tombstone }
            return .legacyToken(IndexedLegacyToken(legacy, identity: identity, sequence: sequence))
        case .other:
            return .other
        }
    }
}
