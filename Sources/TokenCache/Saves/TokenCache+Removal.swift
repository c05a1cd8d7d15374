import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema

/// What a removal deleted and wrote.
public struct RemovalResult: Sendable, Hashable {
    /// Credentials and account records deleted.
    public let deleted: [ItemIdentity]
    /// Whether the account metadata now marks the account `signed_out` for the app.
    public let markedSignedOut: Bool
    /// Whether a wipe record was written (refresh tokens were among the deleted items).
    public let wroteWipeRecord: Bool
}

extension TokenCache {
    /// Signs an account out of one app, as MSAL's `removeAccount` does, in one atomic batch:
    ///
    /// - deletes the account's credentials whose `client_id` is this app's — its access, ID and
    ///   refresh tokens and the family copies *it* wrote; other apps' family tokens stay, so they
    ///   keep single sign-on;
    /// - deletes the app's legacy ADAL entries for the account's user (client id compared exactly);
    /// - keeps the account records;
    /// - marks the account `signed_out` in the app's account metadata, which hides it from
    ///   ``accounts(clientId:environment:idTokenClaims:)`` for this app even though family tokens remain;
    /// - writes the wipe record when a refresh token was deleted.
    @discardableResult
    public func removeAccount(homeAccountId: String, clientId: String) throws -> RemovalResult {
        try remove(homeAccountId: homeAccountId, clientId: clientId, wipe: false)
    }

    /// Removes every trace of an account for all apps: every credential of any client, every
    /// account record of that home account in every environment, and every legacy ADAL entry of its user. With `clientId`, the account is
    /// also marked `signed_out` in that app's account metadata.
    @discardableResult
    public func wipeAccount(homeAccountId: String, clientId: String? = nil) throws -> RemovalResult {
        try remove(homeAccountId: homeAccountId, clientId: clientId, wipe: true)
    }

    private func remove(homeAccountId: String, clientId: String?, wipe: Bool) throws -> RemovalResult {
        // Planned on a copy of the index that is gone before the commit (see save).
        // Committed only if the store is still what the plan saw (see commitPlanned): under the store's write lock.
        try commitPlanned(need: .homeAccount(homeAccountId, environment: nil, legacy: true)) { index in try planRemoval(homeAccountId: homeAccountId, clientId: clientId, wipe: wipe, on: index) }
    }

    private func planRemoval(homeAccountId: String, clientId: String?, wipe: Bool, on index: CacheIndex) throws -> ([StoreOperation], RemovalResult) {
        let home = ItemKey.normalized(homeAccountId)
        let client = clientId.map(ItemKey.normalized)
        let credentials = index.credentials(homeAccountId: home).filter { wipe || $0.clientId == client }
        var deleted = credentials.map(\.identity)
        if wipe { deleted += index.accounts(homeAccountId: home).map(\.identity) }
        // Legacy ADAL entries of the account's users: the app's own (client id compared exactly, as
        // ObjC does), or with a wipe all of them.
        let legacy = legacyUserIds(for: .homeAccountId(home), in: index)
            .flatMap { index.legacyTokensByUser[$0] ?? [] }
            .filter { wipe || $0.item.clientId == clientId }
        deleted += legacy.map(\.identity)
        var operations: [StoreOperation] = deleted.map { .delete($0.query) }

        var markedSignedOut = false
        if let clientId {
            operations += try signOutOperations(home: home, clientId: clientId, on: index)
            markedSignedOut = true
        }
        let removesRefreshToken = legacy.contains(where: \.hasRefreshToken) || credentials.contains {
            [.refreshToken, .familyRefreshToken, .boundRefreshToken].contains($0.credentialType)
        }
        if removesRefreshToken {
            operations.append(.save(WipeRecord(application: configuration.applicationName, time: configuration.clock())
                .storeItem(accessGroup: writeAccessGroup)))
        }
        return (operations, RemovalResult(deleted: deleted, markedSignedOut: markedSignedOut, wroteWipeRecord: removesRefreshToken))
    }

    /// Marks `home` signed out of `clientId` in every item of the account's own that holds its state,
    /// or, with none, in a new one in the partition of its first account record (else of its first
    /// credential). An account the store knows nothing of is marked in the app's account metadata.
    private func signOutOperations(home: String, clientId: String, on index: CacheIndex) throws -> [StoreOperation] {
        var entry = index.signInEntry(clientId: clientId, home: home) ?? AccountMetadata.Entry(clientId: clientId, homeAccountId: home)
        entry.clientId = clientId
        entry.setSignInState(.signedOut)
        let own = index.accountSignIns(clientId: clientId, home: home)
        if !own.isEmpty {
            return try own.map { .save(try AccountSignIn(entry: entry, environment: $0.signIn.environment).storeItem(accessGroup: $0.identity.accessGroup)) }
        }
        if let environment = index.accounts(homeAccountId: home).first?.environment ?? index.credentials(homeAccountId: home).first?.environment {
            return [.save(try AccountSignIn(entry: entry, environment: environment).storeItem(accessGroup: writeAccessGroup))]
        }
        var metadata = index.accountMetadata[clientId]?.metadata ?? AccountMetadata(clientId: clientId)
        metadata.setSignInState(.signedOut, homeAccountId: home)
        return [.save(try metadata.storeItem(accessGroup: writeAccessGroup))]
    }
}
