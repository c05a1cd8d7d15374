/// Lower-case hex of `bytes`, for digests and key ids in keys, attributes and messages; without
/// `String(format:)`, which formats one byte at a time and cost Redis keys most of a cold read. Shared by the
/// store modules through `@_spi(Hex)`; not part of the store API. Inlinable, so that callers get it
/// specialized for their byte sequence (a digest's slice, `Data`) instead of the generic walk.
@_spi(Hex) @inlinable public func lowercaseHex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    let digits: StaticString = "0123456789abcdef"
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * 2)
    digits.withUTF8Buffer { digits in
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
    }
    return String(decoding: out, as: UTF8.self)
}
