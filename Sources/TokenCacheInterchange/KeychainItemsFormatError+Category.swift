import CacheStore

extension KeychainItemsFormatError: CategorizedError {
    /// A keychain-items document handed in that cannot be read.
    public var category: ErrorCategory { .badInput }
}
