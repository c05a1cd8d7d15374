import CacheStore

extension EncryptionError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .authenticationFailed, .sealedWithAnotherKey, .unsupportedEnvelope, .malformedEnvelope: .damaged
        case .keyUnavailable, .storeOpenedWithoutKey, .malformedKey, .keyFile: .unavailable
        case .sealFailed: .internal
        }
    }
}
