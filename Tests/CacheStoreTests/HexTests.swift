import Foundation
import Testing

@_spi(Hex) import CacheStore

@Suite struct HexTests {
    @Test func matchesFormattedBytes() {
        #expect(lowercaseHex([UInt8]()) == "")
        #expect(lowercaseHex([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(lowercaseHex(bytes) == bytes.map { String(format: "%02x", $0) }.joined())
            #expect(lowercaseHex(Data(bytes).prefix(16)) == bytes.prefix(16).map { String(format: "%02x", $0) }.joined())
        }
    }
}
