/// The `authority_type` of an account item; its raw value is the keychain type code (`1000 + MSIDAccountType`).
///
/// MSAL writes ``mssts`` (1003). MSAL.NET on iOS writes and reads every account as 1003 whatever its
/// `authority_type`, so readers must not require the code to match the JSON.
public enum AccountType: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `Other`: rejected when read from a payload, as the Apple libraries do.
    case other = 1000
    /// `AAD`: Azure AD v1.
    case aad = 1001
    /// `MSA`.
    case msa = 1002
    /// `MSSTS`: the AAD v2 endpoint, what MSAL writes.
    case mssts = 1003
    /// `ADFS`.
    case adfs = 1004

    /// The keychain `type` attribute.
    public var typeCode: UInt32 { rawValue }

    /// The kind for a keychain `type` attribute; `nil` outside 1000...1004.
    public init?(typeCode: UInt32) {
        self.init(rawValue: typeCode)
    }

    /// The `authority_type` JSON value, e.g. `MSSTS`.
    public var jsonString: String {
        switch self {
        case .other: "Other"
        case .aad: "AAD"
        case .msa: "MSA"
        case .mssts: "MSSTS"
        case .adfs: "ADFS"
        }
    }

    /// The type named by an `authority_type` value, compared case-insensitively; `nil` when unknown.
    public init?(jsonString: String) {
        // The names are ASCII letters, none a "k" (the only one a non-ASCII character, the Kelvin
        // sign, lowercases to alone), so comparing bytes with the lower-case bit set is
        // `lowercased() ==` without two new strings per case: this runs for every account read.
        let match = AccountType.allCases.first { type in
            type.jsonString.utf8.elementsEqual(jsonString.utf8) { name, byte in name | 0x20 == byte | 0x20 }
        }
        guard let match else { return nil }
        self = match
    }

    public var description: String { jsonString }
}
