import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Indexing) import TokenCacheSchema

/// A stored credential, shared by the index entry and every lookup result that found it, and
/// decoded from its payload only when somebody reads it.
///
/// Opening a cache indexes every credential from a partial read (``Credential/init(indexing:)``);
/// the full read — the secret, the members the index does not compare, the unknown ones — waits
/// for ``credential``, and then happens once.
final class CredentialBox: Sendable {
    /// Where the credential is stored.
    let identity: ItemIdentity

    private enum Content {
        /// The payload (the item's other attributes are ``identity``'s).
        case stored(Data)
        /// Boxed: a credential is a few hundred bytes, and inline it would make every box that
        /// size, decoded or not (most never are).
        indirect case decoded(Credential)
    }

    private let content: StateLock<Content>

    /// A credential already in hand (one the engine is saving, or a legacy entry's unified view).
    init(_ credential: Credential, identity: ItemIdentity) {
        self.identity = identity
        content = StateLock(.decoded(credential))
    }

    /// A stored item whose partial read succeeded; decoded on first use.
    init(stored item: StoreItem, identity: ItemIdentity) {
        self.identity = identity
        content = StateLock(.stored(item.data))
    }

    /// The credential, decoded now if this is the first read.
    var credential: Credential {
        content.withLock { content in
            switch content {
            case .decoded(let credential):
                return credential
            case .stored(let data):
                let item = StoreItem(
                    accessGroup: identity.accessGroup, account: identity.account, service: identity.service, type: identity.type,
                    data: data)
                let credential: Credential
                do {
                    credential = try Credential(storeItem: item)
                } catch {
                    // Unreachable: the partial read that admitted this item makes every check the
                    // full one does (the fuzz target `unified-item` holds the two to that). Should
                    // it ever happen, the partial read is the best there is.
                    assertionFailure("a credential the index admitted failed its full read: \(error)")
                    credential = (try? Credential(indexing: item)) ?? Credential(credentialType: .other, secret: "")
                }
                content = .decoded(credential)
                return credential
            }
        }
    }
}
