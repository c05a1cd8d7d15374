import CacheStore

extension SDKKeyringLockedError: CategorizedError {
    public var category: ErrorCategory { .permission }
    public var remedy: String? {
        "unlock the keyring (log in to the desktop, or run `gnome-keyring-daemon --unlock` with the password on stdin)"
    }
}
