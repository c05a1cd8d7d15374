#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The token caches the Microsoft SDKs keep on Linux, and their import.
//
// Every SDK keeps the whole MSAL JSON cache as one secret (or one plaintext file); only the place
// and the encoding differ. The layouts below are those of `docs/formats/linux-persistence.md`
// (§1.4–1.6, §2.3, §2.8, §3.1, §3.4, §4.3 and the matrix of §8). This module knows no keyring
// backend: keyring items reach it through ``SDKKeyring``, which the caller provides (the CLI adapts
// `SecretServiceLookup` to it), so the interchange stays free of libsecret and D-Bus.

/// A Linux SDK whose token cache `tokencache import sdk --from` reads.
public enum SDKCacheLayout: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// MSAL.NET's extension (`Microsoft.Identity.Client.Extensions.Msal`) with the values Azure.Identity
    /// .NET uses; GCM's user cache is the same keyring item.
    case msalDotnet = "msal-dotnet"
    /// Git Credential Manager's MSAL caches (Azure Repos): the user cache and the app cache.
    case gcm
    /// azure-identity for Python (`msal-extensions` `LibsecretPersistence`).
    case azureIdentityPython = "azure-identity-python"
    /// Azure CLI (2.30 and later; keyring only when `core.encrypt_token_cache` is on).
    case azureCLI = "azure-cli"
    /// msal-node-extensions through keytar, with the names Azure Identity for JavaScript uses.
    case msalNode = "msal-node"

    public var description: String { rawValue }

    /// The keyring items the SDK writes.
    public var keyringLayouts: [SDKKeyringLayout] {
        // §1.5: Azure.Identity's `MsalClientID=Microsoft.Developer.IdentityService`,
        // `Microsoft.Developer.IdentityService=1.0.0.0`, shared by GCM's user cache.
        let identityService = [
            SDKAttribute("MsalClientID", "Microsoft.Developer.IdentityService"),
            SDKAttribute("Microsoft.Developer.IdentityService", "1.0.0.0"),
        ]
        switch self {
        case .msalDotnet:
            return [
                SDKKeyringLayout(
                    writer: "Azure.Identity .NET / MSAL.NET extension", schema: "msal.cache", matchesSchema: false,
                    attributes: identityService, label: "msal.cache.nocae", encoding: .base64JSON,
                    reference: "§1.4, §1.5, §8")
            ]
        case .gcm:
            return [
                SDKKeyringLayout(
                    writer: "GCM user cache", schema: "msal.cache", matchesSchema: false,
                    attributes: identityService, label: "MSALCache", encoding: .base64JSON, reference: "§1.5, §4.3, §8"),
                SDKKeyringLayout(
                    writer: "GCM app cache", schema: "(the cache file name)", matchesSchema: false,
                    attributes: [SDKAttribute("MsalClientID", "GitCredentialManager.MSAL"), SDKAttribute("GitCredentialManager.MSAL", "1.0.0.0")],
                    label: "AppCache", encoding: .base64JSON, reference: "§1.5"),
            ]
        case .azureIdentityPython:
            return ["msal.cache.nocae", "msal.cache.cae"].map { name in
                SDKKeyringLayout(
                    writer: "azure-identity (Python)", schema: name, matchesSchema: true,
                    attributes: [SDKAttribute("MsalClientID", "Microsoft.Developer.IdentityService")],
                    label: "MSALCache", encoding: .rawJSON, reference: "§2.3, §2.8, §8")
            }
        case .azureCLI:
            return [
                SDKKeyringLayout(
                    writer: "Azure CLI", schema: "Microsoft Azure CLI", matchesSchema: true,
                    attributes: [SDKAttribute("type", "Token cache")], label: "", encoding: .rawJSON,
                    reference: "§2.8, §8")
            ]
        case .msalNode:
            return [
                SDKKeyringLayout(
                    writer: "msal-node (keytar) / Azure Identity JS", schema: "org.freedesktop.Secret.Generic", matchesSchema: true,
                    attributes: [SDKAttribute("service", "Microsoft.Developer.IdentityService"), SDKAttribute("account", "MSALCache")],
                    label: "Microsoft.Developer.IdentityService/MSALCache", encoding: .rawJSON, reference: "§3.1, §3.4, §8")
            ]
        }
    }

    /// The plaintext files the SDK writes when it does not use the keyring (or, empty, as the
    /// signal file of its keyring cache), in `environment` (`HOME`, `XDG_DATA_HOME`, `AZURE_CONFIG_DIR`).
    public func files(environment: [String: String]) -> [SDKCacheFile] {
        let home = Self.home(environment)
        switch self {
        case .msalDotnet:
            // .NET's LocalApplicationData on Linux: $XDG_DATA_HOME, else ~/.local/share.
            var data = home + "/.local/share"
            if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { data = xdg }
            return ["msal.cache.nocae", "msal.cache.cae"].map {
                SDKCacheFile(writer: "Azure.Identity .NET (plaintext fallback)", path: "\(data)/.IdentityService/\($0)", reference: "§1.5, §1.6, §8")
            }
        case .gcm:
            return [SDKCacheFile(writer: "GCM (plain-text fallback)", path: home + "/.local/.IdentityService/msal.cache", reference: "§1.5, §4.3")]
        case .azureIdentityPython:
            return ["msal.cache.nocae", "msal.cache.cae"].map {
                SDKCacheFile(writer: "azure-identity Python (allow_unencrypted_storage)", path: "\(home)/.IdentityService/\($0)", reference: "§2.8")
            }
        case .azureCLI:
            var directory = home + "/.azure"
            if let configured = environment["AZURE_CONFIG_DIR"], !configured.isEmpty {
                directory = configured == "~" ? home : configured.hasPrefix("~/") ? home + configured.dropFirst() : configured
            }
            return [SDKCacheFile(writer: "Azure CLI (plaintext, the Linux default)", path: directory + "/msal_token_cache.json", reference: "§2.8")]
        case .msalNode:
            return ["msal.cache.nocae", "msal.cache.cae"].map {
                SDKCacheFile(writer: "Azure Identity JS (unsafeAllowUnencryptedStorage)", path: "\(home)/.IdentityService/\($0)", reference: "§3.4")
            }
        }
    }

    static func home(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        return FileManager.default.homeDirectoryForCurrentUser.path
    }
}

/// A plaintext cache file an SDK writes (always raw MSAL JSON), or the empty signal file it keeps
/// beside a keyring cache.
public struct SDKCacheFile: Sendable, Hashable {
    public var writer: String
    public var path: String
    public var reference: String
}
