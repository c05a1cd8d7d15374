import CacheStore
import Foundation
import FuzzSupport
import TokenCacheSchema

// The unified item payload decoder. The first bytes choose the item's attributes (a type code
// among the unified ones, an untyped item, or an arbitrary code; a generic); the rest is the payload.
// Any payload must decode or throw SchemaError; an item that decodes must give a store item that
// decodes again.
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
    guard let unified = try? UnifiedItem(item) else { return }
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
