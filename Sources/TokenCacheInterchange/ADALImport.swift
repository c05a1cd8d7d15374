import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import TokenCacheJSON
import TokenCacheSchema

/// Turns the ADAL caches of other platforms into store items.
///
/// Every ADAL token becomes a legacy ADAL entry (`MSOpenTech.ADAL.1|…`, an `ADTokenCacheStoreItem`
/// archive) in the shape ADAL for iOS stores the same response: an access-token entry for the
/// resource and a multi-resource refresh-token entry, keyed by the user's displayable id. That is
/// where MSAL finds ADAL users and their refresh tokens. An ADAL.NET entry that carries
/// `RawClientInfo` also yields the unified refresh token and account MSAL.NET would derive from it.
enum ADALImport {
    // MARK: - ADAL.NET v3

    static func decodeADALNetV3(
        _ data: Data, source: String, accessGroup: String, progress: ((Int, Int) -> Void)?
    ) throws(InterchangeError) -> DecodedImport {
        let entries = try ADALNetV3Blob.read(data, source: source)
        progress?(0, entries.count)
        var collector = Collector()
        var skipped: [ImportIssue] = []
        for (index, entry) in entries.enumerated() {
            let path = "entry \(index) (\(quotedKey(entry.clientId)), \(quotedKey(entry.resource)))"
            guard entry.subjectType == 0 else {
                skipped.append(ImportIssue(path: path, reason: "an application's own token (subject type \(entry.subjectType)), not a user's"))
                continue
            }
            let result = entry.value["Result"]?.objectValue ?? JSONObject()
            let user = result["UserInfo"]?.objectValue ?? JSONObject()
            func string(_ object: JSONObject, _ key: String) -> String? {
                guard let text = object[key]?.stringValue, !text.allSatisfy(\.isWhitespace) else { return nil }
                return text
            }
            let accessToken = string(result, "AccessToken")
            let refreshToken = string(entry.value, "RefreshToken")
            guard accessToken != nil || refreshToken != nil else {
                skipped.append(ImportIssue(path: path, reason: "holds no token"))
                continue
            }
            let displayableId = string(user, "DisplayableId") ?? string(user, "UniqueId")
            let clientInfo = string(entry.value, "RawClientInfo").flatMap(ClientInfoFields.init)
            var authority = entry.authority
            while authority.hasSuffix("/") { authority.removeLast() }
            let rawIdToken = string(result, "IdToken")
            if let accessToken {
                var additional: [(String, ArchivedValue)] = []
                if let extended = ADALNetV3Blob.date(result["ExtendedExpiresOn"]) {
                    additional.append(("extended_expires_on", .date(extended)))
                }
                let item = LegacyTokenCacheItem(
                    authority: authority, resource: entry.resource, clientId: entry.clientId, accessToken: accessToken,
                    accessTokenType: string(result, "AccessTokenType") ?? "Bearer",
                    expiresOn: ADALNetV3Blob.date(result["ExpiresOn"]), rawIdToken: rawIdToken,
                    homeAccountId: clientInfo?.homeAccountId, additionalServer: .dictionary(additional))
                collector.add(item.storeItem(accessGroup: accessGroup, userId: displayableId ?? ""))
            }
            if let refreshToken {
                let item = LegacyTokenCacheItem(
                    authority: authority, resource: nil, clientId: entry.clientId, refreshToken: refreshToken,
                    rawIdToken: rawIdToken, homeAccountId: clientInfo?.homeAccountId)
                collector.add(item.storeItem(accessGroup: accessGroup, userId: displayableId ?? ""))
                if let clientInfo, let host = URLComponents(string: authority)?.host?.lowercased() {
                    // What MSAL.NET derives from an ADAL entry with client info: the user's refresh
                    // token and account, in the unified schema.
                    let credential = Credential(
                        credentialType: .refreshToken, secret: refreshToken, clientId: entry.clientId,
                        homeAccountId: clientInfo.homeAccountId, environment: host, clientInfo: clientInfo.raw)
                    let account = Account(
                        authorityType: .mssts, homeAccountId: clientInfo.homeAccountId, environment: host,
                        realm: string(result, "TenantId") ?? URLComponents(string: authority)?.path.split(separator: "/").first.map(String.init),
                        localAccountId: string(user, "UniqueId"), username: displayableId,
                        givenName: string(user, "GivenName"), familyName: string(user, "FamilyName"),
                        clientInfo: clientInfo.raw)
                    do {
                        collector.add(try credential.storeItem(accessGroup: accessGroup))
                        collector.add(try account.storeItem(accessGroup: accessGroup))
                    } catch {
                        throw .invalidEntry(source: source, path: path, error)
                    }
                }
            }
            progress?(index + 1, entries.count)
        }
        return DecodedImport(format: .adalV3, items: collector.items, entries: entries.count, skipped: skipped, adjusted: [])
    }

    /// `RawClientInfo`: base64url JSON with `uid` and `utid`.
    struct ClientInfoFields {
        let raw: String
        let homeAccountId: String

        init?(_ raw: String) {
            guard let data = Base64URL.decode(raw), let object = (try? JSONValue.parse(data))?.objectValue,
                let uid = object["uid"]?.stringValue, let utid = object["utid"]?.stringValue
            else { return nil }
            self.raw = raw
            homeAccountId = "\(uid).\(utid)".lowercased()
        }
    }

    // MARK: - ADAL for iOS keychain item

    /// One ADAL for iOS keychain item's payload: an `ADTokenCacheStoreItem` archive. It becomes the
    /// legacy item ADAL keeps it as, keyed by its own authority, resource and client id and by the
    /// displayable id of its user information (its ID token, else the archived `userId`).
    static func decodeADALKeychainItem(
        _ data: Data, source: String, accessGroup: String, progress: ((Int, Int) -> Void)?
    ) throws(InterchangeError) -> DecodedImport {
        let item: LegacyTokenCacheItem
        do {
            item = try LegacyTokenCacheItem(archive: data)
        } catch {
            throw .invalidEntry(source: source, path: "archive", error)
        }
        progress?(1, 1)
        if item.isTombstone {
            return DecodedImport(format: .adalKeychainItem, items: [], entries: 1,
                                 skipped: [ImportIssue(path: "archive", reason: "a tombstone (a removed token)")], adjusted: [])
        }
        return DecodedImport(format: .adalKeychainItem, items: [item.storeItem(accessGroup: accessGroup)], entries: 1, skipped: [], adjusted: [])
    }

    // MARK: - ADAL macOS

    /// ADAL for macOS's serialized cache: a keyed archive of
    /// `{version: 1, tokenCache: {tokens: {<user id>: {<ADTokenCacheKey>: <ADTokenCacheStoreItem>}}}}`.
    static func decodeADALMacOS(
        _ data: Data, source: String, accessGroup: String, progress: ((Int, Int) -> Void)?
    ) throws(InterchangeError) -> DecodedImport {
        let root: ArchivedValue
        do {
            root = try KeyedArchive.decode(data)
        } catch {
            throw .invalidStructure(source: source, path: "archive", reason: error.description)
        }
        switch root["version"] {
        case .integer(let version)? where version <= 1: break
        case .real(let version)? where version <= 1: break
        case nil: throw .invalidStructure(source: source, path: "version", reason: "is missing; not an ADAL macOS cache")
        default: throw .invalidStructure(source: source, path: "version", reason: "is newer than 1; not an ADAL cache this version reads")
        }
        guard case .dictionary(_, let users, let tokenLists)? = root["tokenCache"]?["tokens"] else {
            throw .invalidStructure(source: source, path: "tokenCache.tokens", reason: "must be a dictionary of users")
        }
        var collector = Collector()
        var skipped: [ImportIssue] = []
        var count = 0
        for (user, tokens) in zip(users, tokenLists) {
            guard case .string(let userId) = user else {
                throw .invalidStructure(source: source, path: "tokenCache.tokens", reason: "a user key is not a string")
            }
            guard case .dictionary(_, _, let items) = tokens else {
                throw .invalidStructure(source: source, path: "tokenCache.tokens \(quotedKey(userId))", reason: "must be a dictionary of tokens")
            }
            for (index, value) in items.enumerated() {
                count += 1
                let path = "tokenCache.tokens \(quotedKey(userId)) [\(index)]"
                guard case .object(let object) = value else {
                    throw .invalidStructure(source: source, path: path, reason: "is not an archived token item")
                }
                let item: LegacyTokenCacheItem
                do {
                    item = try LegacyTokenCacheItem(archivedObject: object)
                } catch {
                    throw .invalidEntry(source: source, path: path, error)
                }
                if item.isTombstone {
                    skipped.append(ImportIssue(path: path, reason: "a tombstone (a removed token)"))
                    continue
                }
                collector.add(item.storeItem(accessGroup: accessGroup, userId: userId))
            }
        }
        progress?(count, count)
        return DecodedImport(format: .adalMacOS, items: collector.items, entries: count, skipped: skipped, adjusted: [])
    }
}
