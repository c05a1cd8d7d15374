@_spi(Text) import CacheStore
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

extension UInt8 {
    /// Whether the byte is ASCII white space or a newline as Foundation's `.whitespacesAndNewlines`
    /// counts them: space, tab, line feed, vertical tab, form feed, carriage return.
    ///
    /// The one definition behind every byte-level trim in the engine (key normalization, blank
    /// tests, scopes, base64url): the fast paths must agree with the Unicode test the non-ASCII
    /// paths use (`trimming(.whitespacesAndNewlines)`, Foundation's set).
    @_spi(Text) @inlinable public var isASCIIWhitespace: Bool {
        self == 0x20 || (self >= 0x09 && self <= 0x0D)
    }

    /// The byte with an ASCII upper-case letter (`A`–`Z`) lowered; any other byte as it is.
    @_spi(Text) @inlinable public var asciiLowercased: UInt8 {
        self >= 0x41 && self <= 0x5A ? self | 0x20 : self
    }
}

extension UInt64 {
    /// Of eight ASCII bytes read as one word, the high bit of each that is an upper-case letter
    /// (`A`–`Z`); zero when none is. For a byte below 0x80, b + 0x3F has its high bit set when
    /// b >= "A", b + 0x25 when b > "Z", and neither sum carries into the next byte. Bytes from
    /// 0x80 up give no meaningful answer: callers test `word & 0x8080_8080_8080_8080` for them.
    ///
    /// The one definition behind the word-at-a-time case tests (key normalization, the engine's
    /// digest of normalized keys).
    @_spi(Text) @inlinable public var asciiUpperCaseBits: UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        return (self &+ ones &* 0x3F) & ~(self &+ ones &* 0x25) & (ones &* 0x80)
    }

    /// Eight ASCII bytes read as one word, each upper-case letter lowered: the high bit
    /// ``asciiUpperCaseBits`` sets, moved down to 0x20, is the bit that lowers it. The same caveat
    /// for bytes from 0x80 up.
    @_spi(Text) @inlinable public var asciiLowercased: UInt64 {
        self | asciiUpperCaseBits &>> 2
    }
}

extension String {
    /// The string without white space and newlines at either end (Foundation's
    /// `.whitespacesAndNewlines`). Returned as is, without a walk over its scalars, when it starts
    /// and ends with ASCII that is not white space, as client ids do.
    @_spi(Text) public func trimmingWhitespace() -> String {
        let isPlain = { (byte: UInt8) in byte < 0x80 && !byte.isASCIIWhitespace }
        // The ends are tested on the contiguous bytes, as key normalization does: `utf8.last`
        // walks the view generically.
        let plainEnds = utf8.withContiguousStorageIfAvailable { bytes in
            guard let first = bytes.first, let last = bytes.last else { return false }
            return isPlain(first) && isPlain(last)
        }
        if plainEnds == true { return self }
        return trimming(.whitespacesAndNewlines)
    }
}
