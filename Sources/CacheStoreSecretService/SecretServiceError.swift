import CacheStore

/// Why the Secret Service could not be used. Each case says what to do; none carries a secret.
///
/// The backend never falls back silently to another store and never deletes data because the
/// keyring is unavailable: every one of these stops the operation and leaves the keyring as it was.
public enum SecretServiceError: Error, Sendable, CustomStringConvertible {
    /// libsecret is not installed (or lacks a function tokencache calls): `library` is the name tried,
    /// `reason` the loader's message. Nothing but the Secret Service is affected.
    case libraryUnavailable(library: String, reason: String)
    /// No D-Bus session bus: `DBUS_SESSION_BUS_ADDRESS` is unset and `$XDG_RUNTIME_DIR/bus` does not exist.
    case noSessionBus
    /// A session bus address is set, but connecting to it failed.
    case sessionBusUnreachable(address: String, message: String)
    /// The session bus has no Secret Service (no keyring daemon runs or can be started).
    case serviceUnavailable(message: String)
    /// The named collection (alias, label or object name) does not exist.
    case collectionNotFound(String)
    /// The collection is locked and the store was not allowed to prompt for unlocking.
    case collectionLocked(String)
    /// The user dismissed the keyring's unlock prompt.
    case promptDismissed(String)
    /// A partition item's secret is not a tokencache partition (written by something else, or damaged).
    case corruptPartition(accessGroup: String, account: String, reason: String)
    /// A Secret Service call failed; `remoteName` is the D-Bus error name when the service sent one.
    case operationFailed(operation: String, message: String, remoteName: String?)
    /// A batch failed after writing some partitions, and restoring them failed too.
    case batchPartiallyApplied(message: String, unrestored: [String])

    public var description: String {
        switch self {
        case .libraryUnavailable(let library, let reason):
            return "libsecret could not be loaded (tried \(library): \(reason)), so the Secret Service cannot be used; "
                + "install it (`apt-get install libsecret-1-0` on Debian and Ubuntu, `dnf install libsecret` on Fedora)"
        case .noSessionBus:
            return "no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist, "
                + "so the Secret Service cannot be reached. Run inside your desktop session, or start one for this "
                + "shell with `dbus-run-session -- $SHELL` and unlock a keyring in it "
                + "(`printf '%s' PASSWORD | gnome-keyring-daemon --unlock --components=secrets`)"
        case .sessionBusUnreachable(let address, let message):
            return "cannot connect to the D-Bus session bus at \(address) (\(message)); check DBUS_SESSION_BUS_ADDRESS "
                + "names the running session, or start one with `dbus-run-session -- $SHELL`"
        case .serviceUnavailable(let message):
            return "no Secret Service runs on the D-Bus session bus (\(message)); start a keyring daemon, e.g. "
                + "`gnome-keyring-daemon --start --components=secrets`, or install gnome-keyring or KeePassXC"
        case .collectionNotFound(let name):
            return "the Secret Service has no collection '\(name)'; use the default collection, the session "
                + "collection, or create the collection in your keyring manager (e.g. Seahorse)"
        case .collectionLocked(let name):
            return "the keyring collection '\(name)' is locked; unlock it (log in to the desktop, open your keyring "
                + "manager, or run `gnome-keyring-daemon --unlock` with the password on stdin) and try again. "
                + "Nothing was changed"
        case .promptDismissed(let name):
            return "the prompt to unlock keyring collection '\(name)' was dismissed; nothing was changed. Run the "
                + "command again and enter the keyring password"
        case .corruptPartition(let group, let account, let reason):
            return "the keyring item of access group '\(group)', account '\(account)' is not a readable tokencache "
                + "partition (\(reason)); it was left unchanged. Inspect it with `secret-tool search --all "
                + "access-group '\(group)'` and delete it if it is damaged"
        case .operationFailed(let operation, let message, let remoteName):
            return "Secret Service: \(operation) failed: \(message)" + (remoteName.map { " (\($0))" } ?? "")
        case .batchPartiallyApplied(let message, let unrestored):
            return "Secret Service: a batch failed (\(message)) and restoring the partitions it had already written "
                + "failed too; these keyring items may hold the batch's new content: "
                + unrestored.joined(separator: ", ")
        }
    }
}

extension SecretServiceError: CategorizedError {
    public var category: ErrorCategory {
        switch self {
        case .libraryUnavailable, .noSessionBus, .sessionBusUnreachable, .serviceUnavailable, .operationFailed: .unavailable
        // The store cannot be opened where it was asked for; the collection is the store's location.
        case .collectionNotFound: .unavailable
        case .collectionLocked, .promptDismissed: .permission
        case .corruptPartition: .damaged
        case .batchPartiallyApplied: .internal
        }
    }
}
