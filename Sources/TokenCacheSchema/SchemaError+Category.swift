import CacheStore
import KeyedArchive

extension SchemaError: CategorizedError {
    /// An item or entry that breaks the unified schema: bad input when handed in (an import, a
    /// blob); a malformed stored item is skipped by the engine, not thrown.
    public var category: ErrorCategory { .badInput }
}

extension JSONParseError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}

// KeyedArchive knows nothing of the store contract; its errors are categorized here, where the
// cache reads archives.
extension KeyedArchiveError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}

extension BinaryPropertyListError: CategorizedError {
    public var category: ErrorCategory { .badInput }
}
