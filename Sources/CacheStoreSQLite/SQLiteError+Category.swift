import CacheStore

extension SQLiteError: CategorizedError {
    public var category: ErrorCategory {
        if extendedResultCode == .ioErrorAccess { return .permission }
        switch resultCode {
        case .corrupt, .notADatabase: return .damaged
        case .permission, .readOnly, .authorization: return .permission
        case .busy, .locked, .ioError, .full, .cannotOpen, .noMemory, .noLargeFileSupport, .protocol, .interrupt:
            return .unavailable
        default: return .internal
        }
    }

    public var remedy: String? {
        switch category {
        case .damaged: "restore the store file from a backup, or move it aside to start an empty store"
        case .permission: "check the permissions of the store file and its directory"
        default: nil
        }
    }
}
