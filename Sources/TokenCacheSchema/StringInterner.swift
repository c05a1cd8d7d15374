#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Strings read from many payloads, made once and shared: an index reads the same home account
/// id, environment and client id from every item of an account, and each would otherwise be a
/// heap string of its own (allocated, copied, later freed) while holding the same bytes.
///
/// A small table of the values met so far, by a hash of their bytes; strings of 15 bytes or fewer
/// are stored inline by Swift and are not kept. One interner serves one thread (one chunk of items
/// being indexed): it is not shared, so the strings it hands out are retained by one core at a time.
@_spi(Indexing) public struct StringInterner {
    private var slots: [String?]
    private var kept = 0

    /// An interner that keeps up to half of `capacity` (a power of two) strings; when full, it stops
    /// keeping new ones and still answers every call.
    public init(capacity: Int = 64) {
        slots = Array(repeating: nil, count: capacity)
    }

    /// The string of `bytes` (valid UTF-8; other input is repaired as `String(decoding:)` does).
    public mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        guard count > 15 else { return String(decoding: bytes, as: UTF8.self) }
        // Eight bytes at a time (the last word overlaps the one before): a few nanoseconds for a
        // home account id. Only equal bytes are ever taken for each other, so the hash need not be strong.
        var hash = UInt64(count) &* 0x9E37_79B9_7F4A_7C15
        var offset = 0
        while offset < count {
            let word = bytes.loadUnaligned(fromByteOffset: Swift.min(offset, count - 8), as: UInt64.self)
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 29
            offset += 8
        }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash ^ (hash >> 32)) & mask
        while var known = slots[slot] {
            let same = known.withUTF8 { $0.count == count && memcmp($0.baseAddress!, bytes.baseAddress!, count) == 0 }
            if same { return known }
            slot = (slot + 1) & mask
        }
        let made = String(decoding: bytes, as: UTF8.self)
        if kept * 2 < slots.count {
            slots[slot] = made
            kept += 1
        }
        return made
    }
}
