import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import TokenCacheSchema

/// The record MSAL and ADAL write when they delete refresh tokens: who wiped, and when.
///
/// Item: account `TokenWipe`, no service, generic `Microsoft.ADAL.WipeAll.1`, no type; payload a
/// keyed archive of `{"bundleId": NSString, "wipeTime": NSDate}`. Libraries read it only to log why a
/// refresh token is gone.
struct WipeRecord {
    let application: String
    let time: Date

    func storeItem(accessGroup: String) -> StoreItem {
        let record = KeyedArchive.encode(root: .dictionary([("bundleId", .string(application)), ("wipeTime", .date(time))]))
        return StoreItem(
            accessGroup: accessGroup, account: UnifiedItem.wipeInfoAccount, service: "",
            generic: Data(UnifiedItem.wipeInfoGeneric.utf8), type: nil, data: record)
    }
}
