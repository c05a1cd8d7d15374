/// Text from a file or a store made safe to show on a terminal.
///
/// Attributes, keys and payloads come from files anyone may have written. Shown raw, an ESC or a C1
/// control (U+009B is CSI) starts a terminal escape sequence that can rewrite the screen, set the
/// window title or write to the clipboard, and bidirectional overrides reorder what is shown. Every
/// such scalar is written as an escape instead; nothing is ever dropped silently.
public enum DisplayText {
    /// C0 controls, DEL, C1 controls, and the bidirectional formatting characters (embeddings,
    /// overrides, isolates, marks).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text` with every unsafe scalar written as `\u{XXXX}`. With `keepingLineBreaks`, newlines
    /// and tabs stay as they are (for whole lines of output; never for one value).
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        func escapes(_ scalar: Unicode.Scalar) -> Bool {
            isUnsafe(scalar) && !(keepingLineBreaks && (scalar == "\n" || scalar == "\t"))
        }
        // Most text has nothing to escape, and is returned as is: the CLI's whole output, line
        // breaks kept, went scalar by scalar through a copy (a third of listing 10,000 accounts).
        // Printable ASCII, the usual case, is told a byte at a time (a tenth of the scalar walk).
        if text.utf8.allSatisfy({ byte in (byte >= 0x20 && byte < 0x7F) || (keepingLineBreaks && (byte == 0x0A || byte == 0x09)) }) {
            return text
        }
        guard text.unicodeScalars.contains(where: escapes) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if escapes(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` (serialized JSON) with the unsafe scalars JSON allows raw — DEL, C1 controls and the
    /// bidirectional formatting characters — written as JSON escapes (`\u009b`), so the document
    /// means the same and shows safely. JSON serialization already escapes the C0 controls.
    public static func jsonSafe(_ text: String) -> String {
        // Only DEL and above are rewritten: ASCII below DEL (pretty-printed JSON's line breaks
        // included, which sent every listing through the copy below) is returned as is.
        if text.utf8.allSatisfy({ $0 < 0x7F }) { return text }
        guard text.unicodeScalars.contains(where: { isUnsafe($0) && $0.value >= 0x7F }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) && scalar.value >= 0x7F {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` escaped, cut to at most `limit` bytes of UTF-8 (at a scalar boundary, "…" marking the
    /// cut), in single quotes. Bytes, not characters: one character can carry any number of
    /// combining marks.
    public static func quoted(_ text: String, limit: Int = 160) -> String {
        var out = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars {
            let shown = isUnsafe(scalar) ? "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars : String(scalar).unicodeScalars
            let size = shown.reduce(0) { $0 + UTF8.width($1) }
            if bytes + size > limit {
                out.append("…")
                break
            }
            out.append(contentsOf: shown)
            bytes += size
        }
        return "'" + String(out) + "'"
    }
}
