import CacheStore
import CacheStoreMemory
import Foundation
import Testing
import TokenCacheInterchange
import TokenCacheSchema

/// Inputs under the 256 MiB file limit that would still take gigabytes once parsed.
@Suite struct HostileSizeRegressionTests {
    /// `[[],[],…]`: two bytes per value, ~50 bytes per parsed value. 16 MiB of it took 263 MB of
    /// memory to import, so a 256 MiB file would have taken over 4 GB. Now a document holds at most
    /// 8 million values and the import fails with a clear error, leaving the store unchanged.
    @Test func documentsWithTooManyValuesAreRefused() throws {
        let count = 8_000_000
        var bytes = [UInt8]()
        bytes.reserveCapacity(3 * count + 2)
        bytes.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += [UInt8(ascii: "["), UInt8(ascii: "]")]
        }
        bytes.append(UInt8(ascii: "]"))
        let store = MemoryStore(accessGroups: try AccessGroups(["com.microsoft.adalcache"]))
        do {
            _ = try CacheInterchange(store: store).importData(Data(bytes), source: "many.json", format: .msalV2)
            Issue.record("imported a document of \(count + 1) values")
        } catch let error as InterchangeError {
            guard case .malformedJSON(_, let parse) = error, case .tooManyValues(let limit) = parse.reason else {
                Issue.record("expected a value-count error, got \(error)")
                return
            }
            #expect(limit == 8_000_000)
            #expect("\(error)".contains("more than 8000000 values"))
        }
        #expect(try store.allItems().isEmpty)
    }
}
