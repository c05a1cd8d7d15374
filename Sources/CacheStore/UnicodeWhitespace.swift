/// White space as Foundation's character sets define it, tested on Unicode scalars with the
/// standard library's own Unicode data (no ICU). Shared by the store, engine and interchange modules
/// through `@_spi(Text)`; not part of the store API.
@_spi(Text) public enum UnicodeWhitespace: Sendable {
    /// Foundation's `.whitespaces`: the space separators (general category Zs), the tab, and U+200B
    /// ZERO WIDTH SPACE, which Foundation still counts as a space separator.
    case whitespaces
    /// Foundation's `.whitespacesAndNewlines`: ``whitespaces`` and U+000A–U+000D, U+0085, U+2028, U+2029.
    case whitespacesAndNewlines

    /// Whether `scalar` is in the set.
    public func contains(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator { return true }
        guard self == .whitespacesAndNewlines else { return false }
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }
}

extension String {
    /// The text without the set's scalars at either end, as Foundation's `trimmingCharacters(in:)`
    /// leaves it (it trims scalars, not whole characters: a combining mark after a trimmed space stays).
    @_spi(Text) public func trimming(_ whitespace: UnicodeWhitespace) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !whitespace.contains($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !whitespace.contains($0) })!
        return String(Substring(scalars[first...last]))
    }
}
