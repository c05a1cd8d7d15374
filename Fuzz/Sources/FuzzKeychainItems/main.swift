import CacheStore
import Foundation
import FuzzSupport
import TokenCacheInterchange

// The keychain-items reader: any bytes must decode or throw KeychainItemsFormatError. Items that
// decode must encode and decode back to the same items (the format is lossless).
fuzzMain { data in
    guard let items = try? KeychainItemsFormat.decode(data, source: "fuzz") else { return }
    let encoded = KeychainItemsFormat.encode(items)
    let again: [StoreItem]
    do {
        again = try KeychainItemsFormat.decode(encoded, source: "fuzz")
    } catch {
        fatalError("encoded items do not decode: \(error)")
    }
    precondition(again == items, "keychain-items round trip is not lossless")
    return
}
