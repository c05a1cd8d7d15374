@_spi(Text) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An authority URL (`https://login.microsoftonline.com/contoso.onmicrosoft.com`) taken apart the way
/// the cache needs it: the environment (host) and the tenant.
public struct Authority: Sendable, Hashable, CustomStringConvertible {
    /// What kind of authority: it decides the account type and whether the tenant is a placeholder.
    public enum Kind: Sendable, Hashable {
        /// Microsoft Entra ID (AAD v2 / MSSTS).
        case aad
        /// Azure AD B2C (`/tfp/…` or a `b2clogin.com` host).
        case b2c
        /// Active Directory Federation Services (`/adfs`).
        case adfs
    }

    /// The host, lower-cased, with `:port` when the port is not 443: what the cache calls the environment.
    public let environment: String
    /// The first path segment: a tenant id, a domain, `common`, `organizations`, `consumers`, or `adfs`.
    public let tenant: String
    public let kind: Kind
    /// The URL as given.
    public let url: String

    /// Parses an `https` authority URL.
    public init(_ url: String) throws(TokenCacheError) {
        guard let components = URLComponents(string: url.trimming(.whitespaces)),
            components.scheme?.lowercased() == "https",
            let host = components.host?.lowercased(), !host.isEmpty
        else {
            throw .invalidRequest("authority '\(Self.shown(url))' is not an https URL such as https://login.microsoftonline.com/common")
        }
        // A user name or password in an authority is a credential sent nowhere by MSAL: refused, and
        // never repeated in a message.
        guard components.user == nil, components.password == nil else {
            throw .invalidRequest("authority '\(Self.shown(url))' carries user information (user:password@); an authority names only a host and a tenant")
        }
        let segments = components.path.split(separator: "/").map(String.init)
        guard let first = segments.first else {
            throw .invalidRequest("authority '\(Self.shown(url))' names no tenant; add one, e.g. /common or /<tenant id>")
        }
        self.url = url
        if let port = components.port, port != 443 {
            self.environment = "\(host):\(port)"
        } else {
            self.environment = host
        }
        if first.lowercased() == "adfs" {
            self.kind = .adfs
            self.tenant = "adfs"
        } else if first.lowercased() == "tfp" || host.hasSuffix(".b2clogin.com") {
            self.kind = .b2c
            self.tenant = (first.lowercased() == "tfp" && segments.count > 1 ? segments[1] : first).lowercased()
        } else {
            self.kind = .aad
            self.tenant = first.lowercased()
        }
    }

    /// Whether the tenant is a placeholder (`common`, `organizations`, `consumers`) rather than a
    /// real tenant: tokens are then stored under the tenant the ID token names.
    public var isTenantPlaceholder: Bool {
        kind == .aad && ["common", "organizations", "consumers"].contains(tenant)
    }

    public var description: String { url }

    /// `url` for a message: without whatever stands before an `@` in its authority part (user
    /// information, which may be a password).
    static func shown(_ url: String) -> String {
        // The authority part starts after the first "//", when the first slash is one.
        var start = url.startIndex
        if let slash = url.firstIndex(of: "/") {
            let next = url.index(after: slash)
            if next < url.endIndex, url[next] == "/" { start = url.index(after: next) }
        }
        let rest = url[start...]
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard let at = rest[..<end].lastIndex(of: "@") else { return url }
        return String(url[..<start]) + "…" + String(url[at...])
    }
}
