import Foundation

/// Normalizes a key component the way the Apple libraries do (`msidNormalizedString`): trims
/// whitespace and newlines at both ends, then lower-cases.
///
/// Every unified keychain key is built from normalized parts, while payloads keep the original text
/// (`target`, `client_id`, `username` keep their case).
///
/// - Parameter string: the raw value, e.g. `" CONTOSO.COM\n"`.
/// - Returns: the normalized value, e.g. `"contoso.com"`.
public func norm(_ string: String) -> String {
    string.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
}

/// `norm(_:)` of an optional value; `nil` stays `nil`.
public func norm(_ string: String?) -> String? {
    string.map { norm($0) }
}

extension String {
    /// Whether the string is empty or only whitespace and newlines (`msidIsStringNilOrBlank`).
    var isBlank: Bool {
        trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }
}
