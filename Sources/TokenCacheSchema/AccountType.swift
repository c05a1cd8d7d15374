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
        // The spelling writers store first (comparing two small strings is cheap; this runs for
        // every account read), then any other case.
        if let exact = AccountType.allCases.first(where: { $0.jsonString == jsonString }) {
            self = exact
            return
        }
        let wanted = jsonString.lowercased()
        guard let match = AccountType.allCases.first(where: { $0.jsonString.lowercased() == wanted }) else { return nil }
        self = match
    }

    public var description: String { jsonString }
}
