import CacheStore
import Foundation
import FuzzSupport
import TokenCacheInterchange

// MSAL.NET 2.x dictionary import (`[{"Key": "access_tokens", "Value": ["<entry JSON>", …]}, …]`):
// any bytes must decode or throw, never crash or hang.
fuzzMain { data in
    guard let decoded = try? ImportDecoder.decode(data, source: "fuzz", format: .msalV2, accessGroup: "com.microsoft.adalcache") else {
        return
    }
    for item in decoded.items {
        precondition(item.accessGroup == "com.microsoft.adalcache", "unified item outside the import group")
    }
    return
}
