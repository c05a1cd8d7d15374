#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Redis Cluster's key-to-slot mapping: CRC16 (XMODEM) of the key's hash tag, modulo 16384.
enum ClusterSlot {
    static let count = 16384

    /// The slot of `key`: of its hash tag (the bytes between the first `{` and the next `}`, when
    /// not empty), else of the whole key.
    static func of(_ key: Data) -> Int {
        let bytes = [UInt8](key)
        if let open = bytes.firstIndex(of: UInt8(ascii: "{")),
            let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1
        {
            return Int(crc16(bytes[(open + 1)..<close]) % UInt16(count))
        }
        return Int(crc16(bytes[...]) % UInt16(count))
    }

    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
            }
        }
        return crc
    }
}
