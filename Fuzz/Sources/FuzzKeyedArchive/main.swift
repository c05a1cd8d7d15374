import Foundation
import FuzzSupport
import KeyedArchive
import TokenCacheSchema

// Binary property lists, NSKeyedArchiver graphs and the legacy ADAL item on top of them: any bytes
// must read or throw, never crash or hang. An item that reads must survive its own archive.
fuzzMain { data in
    _ = try? BinaryPropertyListReader.read(data)
    if let root = try? KeyedArchive.decode(data) {
        // What we read we must be able to write and read back.
        let again = KeyedArchive.encode(root: root)
        do {
            _ = try KeyedArchive.decode(again)
        } catch {
            fatalError("re-encoded archive does not decode: \(error)")
        }
    }
    if let item = try? LegacyTokenCacheItem(archive: data) {
        do {
            _ = try LegacyTokenCacheItem(archive: item.archiveData)
        } catch {
            fatalError("re-archived ADAL item does not decode: \(error)")
        }
    }
    return
}
