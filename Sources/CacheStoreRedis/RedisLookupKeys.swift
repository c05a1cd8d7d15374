#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The lookup-key index's values: JSON arrays of strings (a partition's `.keys`, an index field's
/// account attributes), readable with `redis-cli`, and editable by the index script.
enum RedisLookupKeys {
    /// The strings as a compact JSON array: `"` and `\` escaped, control characters as their
    /// short escapes or `\u00XX`, everything else as its UTF-8 bytes. Written here rather than by
    /// `JSONEncoder`: 0.4–0.6 µs for one username against its 2.2–3.1 µs (measured 2026-11-27).
    static func encode(_ values: [String]) -> Data {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(values.reduce(2) { $0 + $1.utf8.count + 3 })
        let hex: StaticString = "0123456789abcdef"
        for (position, value) in values.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
                case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
                case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
                case ..<0x20:
                    out += Array("\\u00".utf8)
                    hex.withUTF8Buffer { digits in out += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        return Data(out)
    }

    /// The strings, or nil when `data` is not a JSON array of strings (in valid UTF-8).
    ///
    /// Parsed here rather than by `JSONDecoder`, which cost a fifth of a cold lookup's time: every
    /// lookup by username reads one of these, and every save its partition's. Accepts what both
    /// writers produce (`JSONEncoder`, and the index script's `cjson`, which escapes `/`), and any
    /// other valid JSON array of strings.
    static func decode(_ data: Data) -> [String]? {
        data.withUnsafeBytes { raw in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            return reader.stringArray()
        }
    }

    /// A cursor over the bytes of one array.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func stringArray() -> [String]? {
            skipSpace()
            guard take(UInt8(ascii: "[")) else { return nil }
            var values: [String] = []
            skipSpace()
            if !take(UInt8(ascii: "]")) {
                repeat {
                    skipSpace()
                    guard let value = string() else { return nil }
                    values.append(value)
                    skipSpace()
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "]")) else { return nil }
            }
            skipSpace()
            return position == bytes.count ? values : nil
        }

        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = position
            // The usual value: no escapes, so the bytes between the quotes are the string.
            guard skipPlainRun(), position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: "\"") {
                position += 1
                return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<(position - 1)]), as: UTF8.self)
            }
            var out = Array(bytes[start..<position])
            while bytes[position] == UInt8(ascii: "\\") {
                position += 1
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by an escaped low one.
                        guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        return nil
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    out.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    return nil
                }
                let run = position
                guard skipPlainRun(), position < bytes.count else { return nil }
                out.append(contentsOf: bytes[run..<position])
            }
            position += 1  // the closing quote
            return String(validating: out, as: UTF8.self)
        }

        /// Moves past bytes that stand for themselves, up to a quote, a backslash or the end;
        /// `false` at a control character (JSON requires those escaped).
        private mutating func skipPlainRun() -> Bool {
            while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
                if bytes[position] < 0x20 { return false }
                position += 1
            }
            return true
        }

        private mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        private mutating func skipSpace() {
            while position < bytes.count {
                let byte = bytes[position]
                guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return }
                position += 1
            }
        }
    }

    /// Adds (`+`) or removes (`-`) an account attribute in one index field, atomically on the
    /// server (KEYS: the index hash; ARGV: lookup key, account, `+` or `-`). An emptied field is
    /// removed. Returns 1 when the field changed.
    static let editScript = """
        local raw = redis.call('HGET', KEYS[1], ARGV[1])
        local list = {}
        if raw then
          local ok, decoded = pcall(cjson.decode, raw)
          if ok and type(decoded) == 'table' then list = decoded end
        end
        local found = nil
        for i, v in ipairs(list) do if v == ARGV[2] then found = i break end end
        if ARGV[3] == '+' then
          if found then return 0 end
          table.insert(list, ARGV[2])
        else
          if not found then return 0 end
          table.remove(list, found)
        end
        if #list == 0 then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(list)) end
        return 1
        """
}
