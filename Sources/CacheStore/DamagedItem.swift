/// An item a store holds but cannot vouch for, named by its identity (never its payload).
///
/// Reads skip damaged items — they are never returned, and never repaired or re-sealed on the way —
/// so that one damaged item never takes the rest of the store down. ``ItemStore/damagedItems()``
/// lists them and ``ItemStore/removeDamagedItems()`` removes them.
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

        public var description: String {
            switch self {
            case .unsealedInSealedGroup: "a plain payload in an access group whose payloads are sealed"
            case .failedAuthentication: "its sealed payload fails authentication"
            case .malformedEnvelope: "its sealed payload is not a readable envelope"
            }
        }
    }

    public let identity: ItemIdentity
    public let reason: Reason

    public init(identity: ItemIdentity, reason: Reason) {
        self.identity = identity
        self.reason = reason
    }

    public var description: String {
        "item (access group \(identity.accessGroup.debugDescription), account \(identity.account.debugDescription), "
            + "service \(identity.service.debugDescription), type \(identity.type.map(String.init) ?? "none")): \(reason)"
    }
}
