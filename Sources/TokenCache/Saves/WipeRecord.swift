import CacheStore
import Foundation
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
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        let record: NSDictionary = ["bundleId": application as NSString, "wipeTime": time as NSDate]
        archiver.encode(record, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return StoreItem(
            accessGroup: accessGroup, account: UnifiedItem.wipeInfoAccount, service: "",
            generic: Data(UnifiedItem.wipeInfoGeneric.utf8), type: nil, data: archiver.encodedData)
    }
}
