import Foundation
import KeyedArchive
import Testing

/// Binary property lists built to multiply their bytes through shared references.
@Suite struct HostilePropertyListRegressionTests {
    /// A binary plist whose top array references one 64 KiB data object 1000 times. Each reference
    /// used to copy the bytes (64 MB here; a 16 MiB item could stand for terabytes).
    @Test func aLeafReferencedManyTimesIsReadOnce() throws {
        let count = 1000, size = 65_536
        var bytes = Array("bplist00".utf8)
        let arrayOffset = bytes.count
        bytes += [0xAF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)] + Array(repeating: 1, count: count)
        let dataOffset = bytes.count
        bytes += [0x4F, 0x12, 0, 1, 0, 0] + Array(repeating: 0xAB, count: size)
        let table = bytes.count
        for offset in [arrayOffset, dataOffset] {
            bytes += [UInt8(offset >> 24 & 0xFF), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)]
        }
        func be64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
        bytes += [0, 0, 0, 0, 0, 0, 4, 1] + be64(2) + be64(0) + be64(table)

        guard case .array(let values) = try BinaryPropertyListReader.read(Data(bytes)) else {
            Issue.record("not an array")
            return
        }
        #expect(values.count == count)
        let addresses = Set(values.map { value -> Int in
            guard case .data(let data) = value else { return -1 }
            #expect(data.count == size)
            return data.withUnsafeBytes { Int(bitPattern: $0.baseAddress) }
        })
        #expect(addresses.count == 1, "the 1000 references share one buffer")
    }
}
