import CacheStore

/// The keyring of a found cache is locked: tokencache reads the keyring without unlocking it.
public struct SDKKeyringLockedError: Error, Sendable, CustomStringConvertible {
    public var collection: String
    public var sources: [String]

    public var description: String {
        "the keyring collection \(quotedKey(collection)) is locked, and it holds "
            + sources.joined(separator: ", ")
            + "; tokencache never unlocks the keyring or prompts when importing. Unlock it (log in to the desktop, "
            + "open your keyring manager such as Seahorse, or run `gnome-keyring-daemon --unlock` with the password "
            + "on stdin) and try again, or import the SDKs' plaintext files instead (file:LAYOUT). Nothing was imported"
    }
}

extension SDKKeyringLockedError: CategorizedError {
    public var category: ErrorCategory { .permission }
    public var remedy: String? {
        "unlock the keyring (log in to the desktop, or run `gnome-keyring-daemon --unlock` with the password on stdin)"
    }
}
