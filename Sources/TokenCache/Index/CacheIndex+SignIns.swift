import CacheStore
import TokenCacheSchema

/// An account's sign-in state for one client, as the index holds it (see ``AccountSignIn``).
final class IndexedAccountSignIn: Sendable, Sequenced {
    let signIn: AccountSignIn
    let identity: ItemIdentity
    let sequence: Int

    init(_ signIn: AccountSignIn, identity: ItemIdentity, sequence: Int) {
        self.signIn = signIn
        self.identity = identity
        self.sequence = sequence
    }
}

/// Where the index files sign-in states: the client id as stored (the service attribute, as in
/// MSAL ObjC's item) and the normalized home account id.
struct SignInKey: Hashable, Sendable {
    let clientId: String
    let home: String
}

extension CacheIndex {
    /// An account's sign-in state for a client: its own item (``AccountSignIn``, in the account's
    /// partition; of several, the one whose state ranks first) over the entry of the client's
    /// account-metadata item (MSAL ObjC's `authority_map`, legacy or imported).
    func signInEntry(clientId: String, home: String) -> AccountMetadata.Entry? {
        if let own = accountSignIns[SignInKey(clientId: clientId, home: home)], !own.isEmpty {
            return own.dropFirst().reduce(own[0]) { $1.signIn.outranks($0.signIn) ? $1 : $0 }.signIn.entry
        }
        return accountMetadata[clientId]?.metadata.accounts[home]
    }

    /// An account's own sign-in items for a client, in store order.
    func accountSignIns(clientId: String, home: String) -> [IndexedAccountSignIn] {
        accountSignIns[SignInKey(clientId: clientId, home: home)] ?? []
    }

    /// Whether an account-metadata item holds an entry that belongs in its account's partition
    /// (see ``AccountMetadataFiling``): one the filing would move, or one an account's own item
    /// already overrides.
    var holdsEntriesToFile: Bool {
        accountMetadata.values.contains { metadata, identity in
            guard AccountMetadataFiling.files(metadata, at: identity) else { return false }
            return metadata.accounts.contains { key, entry in
                let home = ItemKey.normalized(key)
                return accountSignIns[SignInKey(clientId: metadata.clientId, home: home)] != nil
                    || (AccountMetadataFiling.isFileable(key: key, entry: entry, clientId: metadata.clientId)
                        && !accounts(homeAccountId: home).isEmpty)
            }
        }
    }
}
