/// Keychain `type` codes of the unified item kinds that are not credentials or accounts.
///
/// Credentials use ``CredentialType`` (2000...2009), accounts ``AccountType`` (1000...1004).
public enum ItemTypeCode {
    /// A general cache item (`3000 + 0`); not written by current libraries.
    public static let generalCacheItem: UInt32 = 3000
    /// App metadata (`3000 + 1`).
    public static let appMetadata: UInt32 = 3001
    /// Account metadata, the per-client "authority map" item.
    public static let accountMetadata: UInt32 = 5001
    /// tokencache's own, not MSAL's: one account's sign-in state and authority map for one client,
    /// kept in the account's partition (``AccountSignIn``). No MSAL or ADAL library uses 9000...9999.
    public static let accountSignIn: UInt32 = 9001
}
