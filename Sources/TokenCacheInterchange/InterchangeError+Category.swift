import CacheStore

extension InterchangeError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .cannotRead, .cannotWrite: .unavailable
        case .unrecognizedFormat, .malformedJSON, .invalidStructure, .invalidEntry, .invalidKeychainItems, .tooLarge:
            .badInput
        }
    }
}
