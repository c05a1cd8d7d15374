import Foundation

extension UInt8 {
    /// Whether the byte is ASCII white space or a newline as Foundation's `.whitespacesAndNewlines`
    /// counts them: space, tab, line feed, vertical tab, form feed, carriage return.
    ///
    /// The one definition behind every byte-level trim in the engine (key normalization, blank
    /// tests, scopes, base64url): the fast paths must agree with Foundation's test, which the
    /// non-ASCII paths still use.
    @_spi(Text) @inlinable public var isASCIIWhitespace: Bool {
        self == 0x20 || (self >= 0x09 && self <= 0x0D)
    }
}

extension String {
    /// The string without white space and newlines at either end (Foundation's
    /// `.whitespacesAndNewlines`). Returned as is, without Foundation's bridging, when it starts
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
        return trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
