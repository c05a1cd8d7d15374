extension StringProtocol {
    /// The text with every occurrence of `scalar` replaced by `replacement`, compared scalar by
    /// scalar (a `/` followed by a combining mark is still a `/`), as a literal search does.
    /// Shared through `@_spi(Text)`; not part of the store API.
    @_spi(Text) public func replacingEvery(_ scalar: Unicode.Scalar, with replacement: String) -> String {
        var result = String.UnicodeScalarView()
        for each in unicodeScalars {
            if each == scalar { result.append(contentsOf: replacement.unicodeScalars) } else { result.append(each) }
        }
        return String(result)
    }
}
