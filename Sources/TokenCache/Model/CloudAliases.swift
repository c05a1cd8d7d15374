#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The environments (login hosts) that name the same cloud, known without a network call.
///
/// Items are written under a cloud's *preferred cache* host and found under any of its aliases, as
/// MSAL does after instance discovery. The table is MSAL.NET's and MSAL Go's offline metadata; a host
/// outside it is its own only alias.
public struct CloudAliases: Sendable {
    /// One cloud: its aliases and the host items are written under.
    public struct Cloud: Sendable, Hashable {
        public let preferredCache: String
        public let preferredNetwork: String
        public let aliases: [String]

        public init(preferredCache: String, preferredNetwork: String, aliases: [String]) {
            self.preferredCache = preferredCache
            self.preferredNetwork = preferredNetwork
            self.aliases = aliases
        }
    }

    /// The clouds MSAL knows offline.
    public static let known = CloudAliases(clouds: [
        Cloud(
            preferredCache: "login.windows.net", preferredNetwork: "login.microsoftonline.com",
            aliases: ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"]),
        Cloud(
            preferredCache: "login.partner.microsoftonline.cn", preferredNetwork: "login.partner.microsoftonline.cn",
            aliases: ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"]),
        Cloud(
            preferredCache: "login.microsoftonline.de", preferredNetwork: "login.microsoftonline.de",
            aliases: ["login.microsoftonline.de"]),
        Cloud(
            preferredCache: "login.microsoftonline.us", preferredNetwork: "login.microsoftonline.us",
            aliases: ["login.microsoftonline.us", "login.usgovcloudapi.net"]),
        Cloud(
            preferredCache: "login-us.microsoftonline.com", preferredNetwork: "login-us.microsoftonline.com",
            aliases: ["login-us.microsoftonline.com"]),
        Cloud(
            preferredCache: "login.windows-ppe.net", preferredNetwork: "login.windows-ppe.net",
            aliases: ["login.windows-ppe.net", "sts.windows-ppe.net", "login.microsoft-ppe.com"]),
        Cloud(
            preferredCache: "login.sovcloud-identity.fr", preferredNetwork: "login.sovcloud-identity.fr",
            aliases: ["login.sovcloud-identity.fr"]),
        Cloud(
            preferredCache: "login.sovcloud-identity.de", preferredNetwork: "login.sovcloud-identity.de",
            aliases: ["login.sovcloud-identity.de"]),
        Cloud(
            preferredCache: "login.sovcloud-identity.sg", preferredNetwork: "login.sovcloud-identity.sg",
            aliases: ["login.sovcloud-identity.sg"]),
    ])

    let clouds: [Cloud]
    /// Position in ``clouds`` by lower-cased host.
    private let cloudByHost: [String: Int]
    /// ``aliases(for:)`` of every known host (lower-cased), computed once: every lookup asks.
    ///
    /// A list searched by length, not a dictionary: with a score of hosts, a dictionary's probe
    /// runs depend on the process's random hash seed, and a bad seed cost a lookup eight string
    /// comparisons (1,000 instructions) where the list costs one.
    private let aliasesByHost: [(host: String, aliases: [String])]
    /// Every host of every cloud, lower-cased, sorted.
    let hosts: [String]

    /// A table of `clouds`; a host listed twice belongs to the first cloud naming it.
    public init(clouds: [Cloud]) {
        self.clouds = clouds
        var table: [String: Int] = [:]
        for (position, cloud) in clouds.enumerated() {
            for host in cloud.aliases + [cloud.preferredCache] where table[host.lowercased()] == nil {
                table[host.lowercased()] = position
            }
        }
        cloudByHost = table
        hosts = table.keys.sorted()
        // One string object per host, in every list (see `canonicalHost(_:)`).
        let canonical = Dictionary(uniqueKeysWithValues: hosts.map { ($0, $0) })
        aliasesByHost = hosts.map { host in
            let cloud = clouds[table[host]!]
            var list = [canonical[cloud.preferredCache.lowercased()]!]
            if host != list[0] { list.append(host) }
            for alias in cloud.aliases.map({ canonical[$0.lowercased()]! }) where !list.contains(alias) { list.append(alias) }
            return (host, list)
        }
    }

    /// `host` (normalized), as the very string object this table's alias lists hold when it is one
    /// of its hosts; else `host` itself.
    ///
    /// The index keeps credentials' environments this way (with the known table), so a lookup's
    /// search of its aliases for a token's environment usually compares two references to one
    /// string, which `==` settles without reading the bytes, instead of comparing 17 to 31 bytes.
    func canonicalHost(_ host: String) -> String {
        let length = host.utf8.count
        for entry in aliasesByHost where entry.host.utf8.count == length && entry.host == host { return entry.host }
        return host
    }

    /// The cloud `environment` belongs to, if known (case-insensitive).
    public func cloud(for environment: String) -> Cloud? {
        position(of: environment).map { clouds[$0] }
    }

    private func position(of environment: String) -> Int? {
        cloudByHost[environment] ?? cloudByHost[environment.lowercased()]
    }

    /// The host items for `environment` are written under: its cloud's preferred cache host, or the
    /// environment itself (lower-cased) when the cloud is unknown.
    public func preferredCache(for environment: String) -> String {
        cloud(for: environment)?.preferredCache ?? environment.lowercased()
    }

    /// Every host that names the same cloud as `environment`, lower-cased, preferred cache first, then
    /// the environment asked for, then the others — the order MSAL searches in.
    public func aliases(for environment: String) -> [String] {
        if let list = knownAliases(of: environment) { return list }
        let asked = environment.lowercased()
        return knownAliases(of: asked) ?? [asked]
    }

    /// The aliases of `host` exactly as spelled, if it is a known host.
    private func knownAliases(of host: String) -> [String]? {
        let length = host.utf8.count
        for entry in aliasesByHost where entry.host.utf8.count == length && entry.host == host { return entry.aliases }
        return nil
    }

    /// The known hosts that end the account attribute `account` (normalized) after a dash: an
    /// attribute is `home-environment`, and both parts may hold dashes, so only a known host tells
    /// where the home account may end.
    func hosts(ending account: String) -> [String] {
        Self.hosts(ending: account, among: hosts)
    }

    /// ``hosts(ending:)`` among `hosts` (lower-cased).
    static func hosts(ending account: String, among hosts: [String]) -> [String] {
        hosts.filter { ends(account, with: $0) }
    }

    /// The longest of `hosts` (lower-cased) that ends `account` after a dash, if any. Runs for every
    /// run of access tokens of a store being read: no array, and each host's bytes compared in place.
    static func longestHost(ending account: String, among hosts: [String]) -> String? {
        var longest: String?
        for host in hosts where host.utf8.count > longest?.utf8.count ?? -1 && ends(account, with: host) {
            longest = host
        }
        return longest
    }

    /// Whether `account` is `…-host`.
    private static func ends(_ account: String, with host: String) -> Bool {
        let attribute = account.utf8
        let suffix = host.utf8
        guard attribute.count > suffix.count else { return false }
        let dash = attribute.count - suffix.count - 1
        let compared = attribute.withContiguousStorageIfAvailable { attribute in
            suffix.withContiguousStorageIfAvailable { suffix in
                attribute[dash] == UInt8(ascii: "-")
                    && (suffix.isEmpty || memcmp(attribute.baseAddress! + dash + 1, suffix.baseAddress!, suffix.count) == 0)
            }
        }
        if let compared, let compared { return compared }
        return attribute.dropFirst(dash).elementsEqual([UInt8(ascii: "-")] + Array(suffix))
    }

    /// Whether the two hosts name the same cloud (or are equal, ignoring case).
    public func areAliases(_ first: String, _ second: String) -> Bool {
        if first == second { return true }
        guard let cloud = position(of: first) else { return first.lowercased() == second.lowercased() }
        return cloud == position(of: second)
    }
}
