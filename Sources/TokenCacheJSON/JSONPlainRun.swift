/// The position of the first byte at or after `start` that ends a run of plain string content:
/// a quote, a backslash, a control character or a non-ASCII byte (or the end). Eight bytes are
/// tested at a time, so a long token is crossed in a fraction of a byte-by-byte loop's time.
package func jsonPlainRunEnd(_ raw: UnsafeRawBufferPointer, from start: Int) -> Int {
    do {
        var index = start
        let count = raw.count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // A byte of the word is zero, or below 0x20, exactly when its high bit is set in
            // these (the classic "has zero byte" test; exact once non-ASCII bytes are excluded).
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = (quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word
            if (special | word) & highs != 0 { break }
            index += 8
        }
        while index < count {
            let byte = raw[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        return index
    }
}
