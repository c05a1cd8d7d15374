import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// The store's refresh tokens as ADAL.NET v3 entries, so that ADAL.NET apps get single sign-on.
///
/// As MSAL.NET writes back to ADAL's cache: one entry per (authority, client, user), holding only
/// the refresh token, the user's ids and `RawClientInfo`; never access tokens. Each entry is marked
/// as a multi-resource refresh token (`ResourceInResponse`), so ADAL redeems it for any resource.
enum ADALExport {
    /// The resource of v2 scopes without one (`User.Read`): Microsoft Graph.
    static let defaultResource = "https://graph.microsoft.com"

    static func entries(for items: [StoreItem]) -> ([ADALNetV3Blob.Entry], [ImportIssue]) {
        var accounts: [String: Account] = [:]
        var accessTokenTargets: [String: String] = [:]
        var refreshTokens: [Credential] = []
        var legacy: [(LegacyTokenCacheItem, userId: String)] = []
        var skipped: [ImportIssue] = []
        for item in items {
            switch try? UnifiedItem(item) {
            case .account(let account)?:
                let home = ItemKey.normalized(account.homeAccountId ?? "")
                // The home tenant's record names the user best; any record will do otherwise.
                if accounts[home] == nil || account.realm.map({ home.hasSuffix("." + ItemKey.normalized($0)) }) == true { accounts[home] = account }
            case .credential(let credential)? where credential.credentialType == .accessToken && !credential.isTombstone:
                let key = ItemKey.normalized(credential.homeAccountId ?? "") + "|" + ItemKey.normalized(credential.clientId ?? "")
                if accessTokenTargets[key] == nil, let target = credential.target { accessTokenTargets[key] = target }
            case .credential(let credential)? where credential.credentialType == .refreshToken && !credential.isTombstone:
                // Family copies are keyed by the family, not the app: ADAL.NET has no such entry.
                if (credential.familyId ?? "").isEmpty { refreshTokens.append(credential) }
            case .other(.legacyADAL)?:
                if let entry = try? LegacyTokenCacheItem(archive: item.data), entry.kind != .accessToken, !entry.isTombstone {
                    legacy.append((entry, LegacyCacheKey.userId(ofAccount: item.account) ?? entry.userId ?? ""))
                }
            case nil:
                skipped.append(ImportIssue(path: "item '\(item.account)' '\(item.service)'", reason: "unreadable; not exported"))
            default:
                break
            }
        }

        var entries: [ADALNetV3Blob.Entry] = []
        var seen = Set<String>()
        func add(_ entry: ADALNetV3Blob.Entry, user: String) {
            // MSAL.NET's ADAL key ignores the resource: one entry per authority, client and user.
            let identity = [ItemKey.normalized(entry.authority), entry.clientId.lowercased(), ItemKey.normalized(user)].joined(separator: "|")
            if seen.insert(identity).inserted { entries.append(entry) }
        }
        for credential in refreshTokens {
            let home = ItemKey.normalized(credential.homeAccountId ?? "")
            let account = accounts[home]
            let tenant = account?.realm ?? home.split(separator: ".").last.map(String.init) ?? "common"
            let environment = credential.environment ?? account?.environment ?? "login.microsoftonline.com"
            let resource = resource(forTarget: accessTokenTargets[home + "|" + ItemKey.normalized(credential.clientId ?? "")])
            let username = account?.username ?? ""
            var userInfo: JSONObject = [:]
            if !username.isEmpty { userInfo["DisplayableId"] = .string(username) }
            if let local = account?.localAccountId { userInfo["UniqueId"] = .string(local) }
            var value: JSONObject = [
                "RefreshToken": .string(credential.secret),
                "ResourceInResponse": .string(resource),
                "Result": .object(["TenantId": .string(tenant), "UserInfo": .object(userInfo)]),
            ]
            if let clientInfo = account?.clientInfo ?? credential.clientInfo { value["RawClientInfo"] = .string(clientInfo) }
            add(ADALNetV3Blob.Entry(
                authority: "https://\(environment)/\(tenant)/", resource: resource,
                clientId: credential.clientId ?? "", subjectType: 0, value: value), user: username)
        }
        for (item, userId) in legacy {
            let resource = item.resource ?? defaultResource
            var userInfo: JSONObject = [:]
            if !userId.isEmpty { userInfo["DisplayableId"] = .string(userId) }
            if let oid = item.idTokenClaims?["oid"]?.stringValue { userInfo["UniqueId"] = .string(oid) }
            var result: JSONObject = ["UserInfo": .object(userInfo)]
            if let rawIdToken = item.rawIdToken { result["IdToken"] = .string(rawIdToken) }
            add(ADALNetV3Blob.Entry(
                authority: item.authority.hasSuffix("/") ? item.authority : item.authority + "/", resource: resource,
                clientId: item.clientId, subjectType: 0,
                value: [
                    "RefreshToken": .string(item.refreshToken ?? ""),
                    "ResourceInResponse": .string(resource),
                    "Result": .object(result),
                ]), user: userId)
        }
        return (entries, skipped)
    }

    /// The v1 resource of a v2 scope list: the part before the last `/` of the first scope that
    /// names one (`https://storage.azure.com/user_impersonation` → `https://storage.azure.com`), else
    /// Microsoft Graph, the resource of bare scopes such as `User.Read`.
    static func resource(forTarget target: String?) -> String {
        for scope in (target ?? "").split(separator: " ") where scope.contains("://") {
            if let slash = scope.lastIndex(of: "/"), scope[..<slash].contains("://") {
                let resource = String(scope[..<slash])
                if !resource.hasSuffix(":/") && !resource.hasSuffix("//") { return resource }
            }
        }
        return defaultResource
    }
}
