import CacheStore
import KeyedArchive
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Text) import TokenCacheSchema

/// What a token response says about whom it is for, read once before the save is planned.
struct SaveSubject {
    let clientId: String
    let claims: IdTokenClaims?
    let clientInfo: ClientInfo?
    let homeAccountId: String
    /// The authority's preferred cache alias.
    let environment: String
    let realm: String?

    init(_ response: TokenResponse, for request: TokenRequest, clouds: CloudAliases) throws {
        clientId = request.clientId.trimmingWhitespace()
        guard !clientId.isEmpty else { throw TokenCacheError.invalidRequest("the client id is empty") }
        var claims: IdTokenClaims?
        if let idToken = response.idToken {
            guard let parsed = IdTokenClaims(rawToken: idToken) else {
                throw TokenCacheError.invalidTokenResponse("'id_token' has no base64url JSON claims segment")
            }
            claims = parsed
        }
        var clientInfo: ClientInfo?
        if let raw = response.clientInfo {
            guard let parsed = ClientInfo(raw: raw) else {
                throw TokenCacheError.invalidTokenResponse("'client_info' is not base64url JSON with 'uid' and 'utid'")
            }
            clientInfo = parsed
        }
        guard let homeAccountId = clientInfo?.homeAccountId ?? claims?.subject.map({ $0.lowercased() }) else {
            throw TokenCacheError.invalidTokenResponse(
                "the response has neither 'client_info' nor an 'id_token' with 'sub', so the account is unknown")
        }
        self.claims = claims
        self.clientInfo = clientInfo
        self.homeAccountId = homeAccountId
        let authority = request.authority
        environment = clouds.preferredCache(for: authority.environment)
        realm =
            switch authority.kind {
            case .adfs: nil
            case .aad, .b2c: claims?.tenantId ?? authority.tenant
            }
    }
}

/// What ``TokenCache/save(_:for:)`` wrote.
public struct SavedTokens: Sendable, Hashable {
    /// `uid.utid` of the account the tokens belong to.
    public let homeAccountId: String
    /// The preferred cache host the items were written under.
    public let environment: String
    /// The tenant the access and ID tokens were stored for.
    public let realm: String?
    /// Every item saved, in the order of the batch (app metadata already stored as is is not).
    public let saved: [ItemIdentity]
    /// Access tokens removed because the new one's scopes overlap theirs.
    public let replacedAccessTokens: [ItemIdentity]
}

extension TokenCache {
    /// Saves a token response the way MSAL does, in one atomic batch:
    ///
    /// - the access token, after deleting this account's access tokens for the same client, realm,
    ///   environment (any alias), kind and application identifier whose scopes intersect the new ones;
    /// - the refresh token, plus its family copy keyed by the family id when the response has `foci`
    ///   (or, with ``Configuration/useSingleFamilyRefreshToken``, a single `FamilyRefreshToken`);
    /// - the ID token;
    /// - the account, merged over the stored one so fields only the old record had survive;
    /// - the app metadata (`family_id` `"1"` or `""`) unless the same record is stored already, and
    ///   the account's `signed_in` state for the app when it changes (an ``AccountSignIn`` in the
    ///   account's partition; no item every account of the app shares).
    ///
    /// Credentials carry exactly the fields MSAL ObjC writes: `client_info` goes on the account only.
    ///
    /// The environment is the authority's preferred cache alias; the realm is the ID token's `tid`
    /// (so `common`/`organizations` never become a realm when an ID token came back).
    ///
    /// - Throws: ``TokenCacheError`` when the response lacks what the cache needs; the store's errors
    ///   when the batch cannot be written (then nothing was written).
    @discardableResult
    public func save(_ response: TokenResponse, for request: TokenRequest) throws -> SavedTokens {
        let subject = try SaveSubject(response, for: request, clouds: configuration.clouds)
        // The plan is made on a copy of the index that is gone before the commit, so the commit can
        // patch the engine's index in place instead of copying it.
        // Committed only if the store is still what the plan saw (see commitPlanned): under the store's write lock.
        // In partition mode the account's partitions are loaded first: a plan that met them missing
        // would be dropped, its write transaction rolled back, and made again.
        let need = PartitionNeed.homeAccount(subject.homeAccountId, environment: subject.environment, legacy: false)
        return try commitPlanned(need: need) { index in try plan(response, for: request, subject: subject, on: index) }
    }

    private func plan(
        _ response: TokenResponse, for request: TokenRequest, subject: SaveSubject, on index: CacheIndex
    ) throws -> ([StoreOperation], SavedTokens) {
        let (clientId, claims, clientInfo, homeAccountId, environment, realm) =
            (subject.clientId, subject.claims, subject.clientInfo, subject.homeAccountId, subject.environment, subject.realm)
        let authority = request.authority
        let familyId = response.familyId.flatMap { $0.isEmpty ? nil : $0 }
        let now = self.now

        var operations: [StoreOperation] = []
        var saved: [ItemIdentity] = []
        var replaced: [ItemIdentity] = []
        func save(_ item: StoreItem) {
            operations.append(.save(item))
            saved.append(item.identity)
        }

        if let accessToken = response.accessToken {
            let tokenType = response.tokenType.flatMap { ItemKey.normalized($0) == "bearer" ? nil : $0 }
            guard let expiresIn = response.expiresIn else {
                throw TokenCacheError.invalidTokenResponse("'expires_in' is missing, so the access token's lifetime is unknown")
            }
            if tokenType != nil && (request.keyId ?? "").isEmpty {
                throw TokenCacheError.invalidRequest("an access token whose token_type is not Bearer needs the request's key id (kid)")
            }
            let target = response.scope ?? request.scopes.joined(separator: " ")
            let credential = Credential(
                credentialType: tokenType == nil ? .accessToken : .accessTokenWithAuthScheme,
                secret: accessToken,
                clientId: clientId,
                homeAccountId: homeAccountId,
                environment: environment,
                realm: realm,
                target: target,
                cachedAt: now,
                expiresOn: UnixTime.adding(expiresIn, to: now),
                extendedExpiresOn: (response.extendedExpiresIn ?? 0) > 0 ? UnixTime.adding(response.extendedExpiresIn!, to: now) : nil,
                refreshOn: response.refreshIn.map { UnixTime.adding($0, to: now) },
                tokenType: tokenType,
                keyId: tokenType == nil ? nil : request.keyId,
                requestedClaims: request.requestedClaims.flatMap { $0.isEmpty ? nil : $0 },
                applicationIdentifier: request.applicationIdentifier)
            // Written once: its payload is the largest of the batch.
            let item = try credential.storeItem(accessGroup: writeAccessGroup)
            let newToken = IndexedCredential(credential, identity: item.identity)
            for old in index.accessTokens(newToken.accessTokenKey, environments: configuration.clouds.aliases(for: environment))
            where old.credentialType == credential.credentialType
                && configuration.clouds.areAliases(old.environment, environment)
                && old.applicationIdentifier == ItemKey.normalized(request.applicationIdentifier ?? "")
                && old.extCacheKey == nil
                && old.scopes.intersects(newToken.scopes)
                && old.identity != newToken.identity
            {
                operations.append(.delete(old.identity.query))
                replaced.append(old.identity)
            }
            save(item)
        }

        if let refreshToken = response.refreshToken {
            let base = Credential(
                credentialType: .refreshToken, secret: refreshToken, clientId: clientId,
                homeAccountId: homeAccountId, environment: environment)
            if let familyId {
                var family = base
                family.familyId = familyId
                if configuration.useSingleFamilyRefreshToken {
                    family.credentialType = .familyRefreshToken
                    save(try family.storeItem(accessGroup: writeAccessGroup))
                } else {
                    save(try family.storeItem(accessGroup: writeAccessGroup))
                    save(try base.storeItem(accessGroup: writeAccessGroup))
                }
            } else {
                save(try base.storeItem(accessGroup: writeAccessGroup))
            }
        }

        if let idToken = response.idToken {
            let credential = Credential(
                credentialType: .idToken, secret: idToken, clientId: clientId,
                homeAccountId: homeAccountId, environment: environment, realm: realm)
            save(try credential.storeItem(accessGroup: writeAccessGroup))
        }

        if claims != nil || clientInfo != nil {
            var account = Account(
                authorityType: authority.kind == .adfs ? .adfs : .mssts,
                homeAccountId: homeAccountId,
                environment: environment,
                realm: realm,
                localAccountId: claims?.objectId.map { $0.lowercased() },
                username: claims?.username,
                givenName: claims?.givenName,
                middleName: claims?.middleName,
                familyName: claims?.familyName,
                name: claims?.name,
                clientInfo: response.clientInfo,
                alternativeAccountId: claims?.alternativeSecurityId)
            if authority.kind == .b2c && account.username == nil {
                account.username = "Missing from the token response"
            }
            account = merged(account, over: index)
            save(try account.storeItem(accessGroup: writeAccessGroup))
        }

        if configuration.writesLegacyADALItems {
            for item in legacyItems(response, request: request, clientId: clientId, homeAccountId: homeAccountId,
                                    environment: environment, familyId: familyId, username: claims?.username, now: now) {
                save(item)
            }
        }

        let appMetadata = AppMetadata(clientId: clientId, environment: environment, familyId: familyId ?? "")
        let appMetadataItem = try appMetadata.storeItem(accessGroup: writeAccessGroup)
        // Not written again when the very record is stored (see CacheIndex.stores(_:as:)).
        if !index.stores(appMetadata, as: appMetadataItem) { save(appMetadataItem) }

        // The account's own item, in its partition: a first sign-in writes no item every user shares.
        let signedIn = index.signInEntry(clientId: clientId, home: ItemKey.normalized(homeAccountId))
        if signedIn?.signInState != .signedIn {
            var entry = signedIn ?? AccountMetadata.Entry(clientId: clientId, homeAccountId: homeAccountId)
            entry.clientId = clientId
            entry.setSignInState(.signedIn)
            save(try AccountSignIn(entry: entry, environment: environment).storeItem(accessGroup: writeAccessGroup))
        }

        return (operations, SavedTokens(
            homeAccountId: homeAccountId, environment: environment, realm: realm,
            saved: saved, replacedAccessTokens: replaced))
    }

    /// `account` overlaid on the stored record with the same key, as MSAL merges: every field of the
    /// old record survives unless the new one sets it.
    private func merged(_ account: Account, over index: CacheIndex) -> Account {
        let key = account.key
        guard
            let old = index.accounts(homeAccountId: ItemKey.normalized(account.homeAccountId ?? "")).first(where: {
                $0.identity.account == key.account && $0.identity.service == key.service && $0.identity.type == key.type
            })
        else { return account }
        var object = old.account.jsonObject
        for (name, value) in account.jsonObject { object[name] = value }
        return (try? Account(jsonObject: object)) ?? account
    }

    /// The legacy entries ADAL ≥ 2.7 writes for a response, keyed by the request authority's tenant
    /// under the preferred cache host, for the user's displayable id.
    private func legacyItems(
        _ response: TokenResponse, request: TokenRequest, clientId: String, homeAccountId: String,
        environment: String, familyId: String?, username: String?, now: Int64
    ) -> [StoreItem] {
        let authority = "https://\(environment)/\(request.authority.tenant)"
        let cachedAt = Date(timeIntervalSince1970: TimeInterval(now))
        var items: [LegacyTokenCacheItem] = []
        if let refreshToken = response.refreshToken {
            let multiResource = LegacyTokenCacheItem(
                authority: authority, resource: nil, clientId: clientId, refreshToken: refreshToken,
                familyId: familyId, rawIdToken: response.idToken, cachedAt: cachedAt, homeAccountId: homeAccountId)
            items.append(multiResource)
            if let familyId {
                var family = multiResource
                family.clientId = LegacyCacheKey.familyClientIdPrefix + familyId
                items.append(family)
            }
        }
        if let resource = request.resource, let accessToken = response.accessToken, let expiresIn = response.expiresIn {
            var additional: [(String, ArchivedValue)] = []
            if let extended = response.extendedExpiresIn, extended > 0 {
                additional.append(("extended_expires_on", .date(Date(timeIntervalSince1970: TimeInterval(UnixTime.adding(extended, to: now))))))
            }
            items.append(LegacyTokenCacheItem(
                authority: authority, resource: resource, clientId: clientId, accessToken: accessToken,
                accessTokenType: response.tokenType ?? "Bearer",
                expiresOn: Date(timeIntervalSince1970: TimeInterval(UnixTime.adding(expiresIn, to: now))),
                familyId: familyId, rawIdToken: response.idToken, cachedAt: cachedAt, homeAccountId: homeAccountId,
                additionalServer: .dictionary(additional)))
        }
        return items.map { $0.storeItem(accessGroup: writeAccessGroup, userId: username) }
    }
}
