import TokenCacheSchema

/// What the account answers (listings, single accounts, the home account order) read from the
/// index, taken before a change to some entries and compared after it, so that the memo of the new
/// state keeps every answer the change cannot have touched.
///
/// An answer for a home account depends on its account records, refresh tokens and ID tokens, on
/// its sign-in state in each app's account metadata, and on each app's family (app metadata). The
/// order depends on where each home account's first record stands.
struct AccountProbe {
    fileprivate var homes: Set<String> = []
    fileprivate var firstRecords: [(home: String, sequence: Int?)] = []
    fileprivate var families: [(clientId: String, familyId: String?)] = []
    /// Each touched app's account map as it was: the map itself, whose storage the index shares,
    /// so taking it copies nothing (the map holds an entry per account the app signed in).
    fileprivate var signInStates: [(clientId: String, accounts: [String: AccountMetadata.Entry])] = []
}

extension CacheIndex {
    /// Reads what the account answers depend on for `touched`, the entries a change adds or takes out.
    func accountProbe(of touched: [Entry]) -> AccountProbe {
        var probe = AccountProbe()
        for entry in touched {
            switch entry {
            case .credential(let credential):
                switch credential.credentialType {
                case .refreshToken, .familyRefreshToken, .boundRefreshToken, .idToken, .v1IdToken:
                    probe.homes.insert(credential.homeAccountId)
                default:
                    break
                }
            case .account(let account):
                probe.homes.insert(account.homeAccountId)
                if !probe.firstRecords.contains(where: { $0.home == account.homeAccountId }) {
                    probe.firstRecords.append((account.homeAccountId, accountsByHomeAccount[account.homeAccountId]?.first?.sequence))
                }
            case .appMetadata(let metadata):
                if !probe.families.contains(where: { $0.clientId == metadata.clientId }) {
                    probe.families.append((metadata.clientId, appMetadata[metadata.clientId]?.first?.familyId))
                }
            case .accountMetadata(let metadata):
                if !probe.signInStates.contains(where: { $0.clientId == metadata.clientId }) {
                    probe.signInStates.append((metadata.clientId, accountMetadata[metadata.clientId]?.metadata.accounts ?? [:]))
                }
            case .accountSignIn(let signIn):
                probe.homes.insert(signIn.signIn.homeAccountKey)
            case .legacyToken, .tombstone, .unreadable, .other:
                // Legacy accounts are worked out on each listing; the rest lists no account.
                break
            }
        }
        return probe
    }

    /// Gives the index the memo of its new state, carrying what `probe` shows unchanged.
    mutating func noteAccountChanges(_ probe: AccountProbe) {
        var change = AccountChange(homes: probe.homes)
        for (home, sequence) in probe.firstRecords where accountsByHomeAccount[home]?.first?.sequence != sequence {
            change.order = true
        }
        for (clientId, familyId) in probe.families where appMetadata[clientId]?.first?.familyId != familyId {
            change.everything = true
        }
        for (clientId, before) in probe.signInStates {
            let after = accountMetadata[clientId]?.metadata.accounts ?? [:]
            func changed(_ home: String) {
                // Listings ask by normalized home account id; the metadata keeps it as written.
                change.homes.insert(home)
                change.homes.insert(ItemKey.normalized(home))
            }
            // One lookup per account: the map grows with every account the app signs in, and a
            // catch-up compares it whenever another process changed it.
            var shared = 0
            for (home, entry) in after {
                let state = before[home]?.signInState
                if state != nil { shared += 1 }
                if state != entry.signInState { changed(home) }
            }
            if shared < before.count {
                for home in before.keys where after[home] == nil { changed(home) }
            }
        }
        memo = memo.next(after: change)
    }
}
