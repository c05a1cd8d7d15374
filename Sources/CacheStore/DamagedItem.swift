/// An item a store holds but cannot vouch for, named by its identity (never its payload).
///
/// Reads skip damaged items — they are never returned, and never repaired or re-sealed on the way —
/// so that one damaged item never takes the rest of the store down. ``ItemStore/damagedItems()``
/// lists them and ``ItemStore/removeDamagedItems()`` removes them.
///
/// A store that keeps several items in one record (a Redis hash, a Secret Service keyring item) may
/// find a whole record unreadable: it is one damaged item named by what is known of its partition
/// (the access group; the account when the record says it) and by ``location``.
public struct DamagedItem: Sendable, Hashable, CustomStringConvertible {
    /// Why an item is damaged.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// A plain payload in an access group whose payloads are sealed: not written by tokencache
        /// (every write to such a group seals), so possibly forged.
        case unsealedInSealedGroup
        /// A sealed payload that fails authentication under its group's key: altered, truncated,
        /// moved from another item, or sealed with another key.
        case failedAuthentication
        /// A sealed payload whose envelope cannot be parsed, or has a version this tokencache does not know.
        case malformedEnvelope
        /// A record holding a whole partition that cannot be decoded (not the stored form, cut
        /// short, or of another type); every item it held is lost with it.
        case unreadablePartition
        /// A field of a partition's record that names no item (not written by tokencache).
        case unreadableField

        public var description: String {
            switch self {
            case .unsealedInSealedGroup: "a plain payload in an access group whose payloads are sealed"
            case .failedAuthentication: "its sealed payload fails authentication"
            case .malformedEnvelope: "its sealed payload is not a readable envelope"
            case .unreadablePartition: "the record holding its partition cannot be decoded"
            case .unreadableField: "its field in the partition's record names no item"
            }
        }
    }

    public let identity: ItemIdentity
    public let reason: Reason
    /// Where the store keeps it, when the identity alone does not say (a Redis key, a keyring item's
    /// object path); never content.
    public let location: String?

    public init(identity: ItemIdentity, reason: Reason, location: String? = nil) {
        self.identity = identity
        self.reason = reason
        self.location = location
    }

    public var description: String {
        "item (access group \(identity.accessGroup.debugDescription), account \(identity.account.debugDescription), "
            + "service \(identity.service.debugDescription), type \(identity.type.map(String.init) ?? "none"))"
            + (location.map { " at \($0)" } ?? "") + ": \(reason)"
    }
}

extension DamagedItem {
    /// One line for diagnostics: how many damaged items reads skip and the first ten of them (by
    /// identity and location, never content); "none" when there are none.
    public static func summary(_ items: [DamagedItem]) -> String {
        guard !items.isEmpty else { return "none" }
        var text = "\(items.count) item\(items.count == 1 ? "" : "s") that reads skip: "
        text += items.prefix(10).map(\.description).joined(separator: "; ")
        if items.count > 10 { text += "; and \(items.count - 10) more" }
        return text
    }

    /// What to do about damaged items, in words, for diagnostics.
    public static let remedy = "remove them with `tokencache repair` (they can never be read again; the accounts they "
        + "belonged to sign in again); if you did not expect them, someone else may have written to the store"
}
