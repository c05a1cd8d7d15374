import CacheStore
import Foundation
import FuzzSupport
import TokenCacheInterchange

// The ADAL.NET v3 binary blob (int32 version, int32 count, 7-bit-length-prefixed key/value strings,
// DataContract JSON values): any bytes must read or throw, never crash or hang. Entries that read
// must survive being written and read back, and the whole import path must accept or refuse them.
fuzzMain { data in
    guard let entries = try? ADALNetV3Blob.read(data, source: "fuzz") else { return }
    do {
        let again = try ADALNetV3Blob.read(ADALNetV3Blob.write(entries), source: "fuzz")
        precondition(again.count == entries.count, "ADAL v3 round trip changed the entry count")
    } catch {
        fatalError("a written ADAL v3 blob does not read back: \(error)")
    }
    _ = try? ImportDecoder.decode(data, source: "fuzz", format: .adalV3, accessGroup: "com.microsoft.adalcache")
}
