import CacheStore
import Foundation
import TokenCacheSchema

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The token caches the Microsoft SDKs keep on Linux, and their import.
//
// Every SDK keeps the whole MSAL JSON cache as one secret (or one plaintext file); only the place
// and the encoding differ. The layouts below are those of `reference/linux-persistence.md`
// (§1.4–1.6, §2.3, §2.8, §3.1, §3.4, §4.3 and the matrix of §8). This module knows no keyring
// backend: keyring items reach it through ``SDKKeyring``, which the caller provides (the CLI adapts
// `SecretServiceLookup` to it), so the interchange stays free of libsecret and D-Bus.

/// How an SDK encodes the MSAL JSON cache in its keyring secret.
public enum SDKCacheEncoding: String, Sendable, Hashable, CustomStringConvertible {
    /// `Convert.ToBase64String(cache)`: MSAL.NET's extension (and so Azure.Identity .NET and GCM), MSAL Go.
    case base64JSON = "base64"
    /// The JSON text itself: msal-extensions for Python (azure-identity, Azure CLI), keytar (msal-node).
    case rawJSON = "raw"

    public var description: String {
        switch self {
        case .base64JSON: "Base64-encoded MSAL JSON"
        case .rawJSON: "MSAL JSON"
        }
    }

    /// The MSAL JSON bytes in `secret`; `nil` when it is empty (an SDK's signal file, a cleared cache).
    ///
    /// - Throws: ``InterchangeError/unrecognizedFormat(source:expected:)`` naming `source` when a
    ///   Base64 secret is not Base64. The message never carries the content.
    public func msalJSON(from secret: Data, source: String) throws(InterchangeError) -> Data? {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        guard secret.contains(where: { !whitespace.contains($0) }) else { return nil }
        switch self {
        case .rawJSON:
            return secret
        case .base64JSON:
            let text = String(decoding: secret.filter { !whitespace.contains($0) }, as: UTF8.self)
            guard let decoded = Data(base64Encoded: text) else {
                throw .unrecognizedFormat(
                    source: source,
                    expected: "Base64-encoded MSAL JSON (this layout stores the cache as Base64; the secret is something else, or damaged)")
            }
            return decoded
        }
    }
}

/// One attribute of a keyring item.
public struct SDKAttribute: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name)=\(value)" }
}

/// One keyring item layout an SDK writes with libsecret.
public struct SDKKeyringLayout: Sendable, Hashable {
    /// What writes it, e.g. "Azure.Identity .NET and MSAL.NET extension cache".
    public var writer: String
    /// The schema name the writer passes to libsecret, which stores it as the attribute `xdg:schema`.
    public var schema: String
    /// Whether the writer's own lookups match `xdg:schema` (`SECRET_SCHEMA_NONE`); `false` for
    /// `SECRET_SCHEMA_DONT_MATCH_NAME`, which matches only the other attributes.
    public var matchesSchema: Bool
    /// The attributes the writer sets (besides `xdg:schema`).
    public var attributes: [SDKAttribute]
    /// The label the writer gives the item (for display; never searched).
    public var label: String
    public var encoding: SDKCacheEncoding
    /// Where the layout is described: a section of `reference/linux-persistence.md`.
    public var reference: String

    /// The attributes to search for: those the writer's own lookup matches.
    public var searchAttributes: [SDKAttribute] {
        matchesSchema ? [SDKAttribute("xdg:schema", schema)] + attributes : attributes
    }
}

/// A plaintext cache file an SDK writes (always raw MSAL JSON), or the empty signal file it keeps
/// beside a keyring cache.
public struct SDKCacheFile: Sendable, Hashable {
    public var writer: String
    public var path: String
    public var reference: String
}

/// A Linux SDK whose token cache `tokencache import --from` reads.
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
        return NSHomeDirectory()
    }
}

/// Which SDK caches to read: `secret-service:LAYOUT`, `file:LAYOUT`, or `auto` (every place of every layout).
public enum SDKCacheSelection: Sendable, Hashable, CustomStringConvertible {
    case secretService(SDKCacheLayout)
    case file(SDKCacheLayout)
    case auto

    public init?(argument: String) {
        if argument == "auto" {
            self = .auto
            return
        }
        guard let colon = argument.firstIndex(of: ":"),
            let layout = SDKCacheLayout(rawValue: String(argument[argument.index(after: colon)...]))
        else { return nil }
        switch argument[..<colon] {
        case "secret-service": self = .secretService(layout)
        case "file": self = .file(layout)
        default: return nil
        }
    }

    /// Every value the selection accepts.
    public static var allValueStrings: [String] {
        SDKCacheLayout.allCases.map { "secret-service:\($0)" } + SDKCacheLayout.allCases.map { "file:\($0)" } + ["auto"]
    }

    public var description: String {
        switch self {
        case .secretService(let layout): "secret-service:\(layout)"
        case .file(let layout): "file:\(layout)"
        case .auto: "auto"
        }
    }

    /// Whether the selection reads the keyring.
    public var usesKeyring: Bool {
        switch self {
        case .secretService, .auto: true
        case .file: false
        }
    }

    /// The places to look, in order: for each layout its keyring items, then its files.
    var places: [(SDKCacheLayout, keyring: [SDKKeyringLayout], files: Bool)] {
        switch self {
        case .secretService(let layout): [(layout, layout.keyringLayouts, false)]
        case .file(let layout): [(layout, [], true)]
        case .auto: SDKCacheLayout.allCases.map { ($0, $0.keyringLayouts, true) }
        }
    }
}

/// A keyring item as ``SDKKeyring`` reports it: metadata only.
public struct SDKKeyringItem: Sendable, Hashable {
    /// Identifies the item to ``SDKKeyring/secrets(of:)`` (a D-Bus object path for the Secret Service).
    public var id: String
    public var label: String
    /// The collection holding it, as a person names it (e.g. `Login`).
    public var collection: String
    public var isLocked: Bool

    public init(id: String, label: String, collection: String, isLocked: Bool) {
        self.id = id
        self.label = label
        self.collection = collection
        self.isLocked = isLocked
    }
}

/// Read-only access to a keyring, provided by a backend (the CLI adapts `SecretServiceLookup`).
/// Neither call may create, change or unlock anything.
public protocol SDKKeyring {
    /// The items, in any collection, carrying all of `attributes` (and maybe more); locked ones too.
    func items(matching attributes: [SDKAttribute]) throws -> [SDKKeyringItem]
    /// The secrets of `items` (all unlocked), by ``SDKKeyringItem/id``.
    func secrets(of items: [SDKKeyringItem]) throws -> [String: Data]
}

/// A place where an SDK's cache was found.
public struct SDKCacheLocation: Sendable, Hashable, CustomStringConvertible {
    public enum Place: Sendable, Hashable {
        case keyring(SDKKeyringItem, SDKKeyringLayout)
        case file(SDKCacheFile, size: Int)
    }

    public var layout: SDKCacheLayout
    public var place: Place

    /// `secret-service:LAYOUT` or `file:LAYOUT`.
    public var selection: String {
        switch place {
        case .keyring: "secret-service:\(layout)"
        case .file: "file:\(layout)"
        }
    }

    /// Where it is, for messages: the keyring item's label, collection and attributes, or the file's
    /// path. Never any content.
    public var description: String {
        switch place {
        case .keyring(let item, let layout):
            let attributes = layout.searchAttributes.map(\.description).joined(separator: ", ")
            return "\(selection) [keyring item \(quotedKey(item.label)) in collection \(quotedKey(item.collection)); \(attributes)]"
        case .file(let file, _):
            return "\(selection) \(file.path)"
        }
    }

    var encoding: SDKCacheEncoding {
        switch place {
        case .keyring(_, let layout): layout.encoding
        case .file: .rawJSON
        }
    }
}

/// What a look through the SDKs' places found.
public struct SDKCacheSurvey: Sendable {
    /// The caches found, in the order of ``SDKCacheSelection``'s places, each place once.
    public var found: [SDKCacheLocation]
    /// Places looked at where nothing was, e.g. `secret-service:gcm [MsalClientID=…]`, `file:azure-cli /home/u/.azure/msal_token_cache.json`.
    public var missing: [String]
    /// Files that exist but are empty: signal files of keyring caches.
    public var signalFiles: [String]
    /// Places whose cache was already found under another layout (`auto` reads it once): GCM's user
    /// cache is Azure.Identity .NET's keyring item; Python's and Node's plaintext files share a path.
    public var foundAgain: [String]
}

/// The keyring of a found cache is locked: tokencache reads the keyring without unlocking it.
public struct SDKKeyringLockedError: Error, Sendable, CustomStringConvertible {
    public var collection: String
    public var sources: [String]

    public var description: String {
        "the keyring collection \(quotedKey(collection)) is locked, and it holds "
            + sources.joined(separator: ", ")
            + "; tokencache never unlocks the keyring or prompts when importing. Unlock it (log in to the desktop, "
            + "open your keyring manager such as Seahorse, or run `gnome-keyring-daemon --unlock` with the password "
            + "on stdin) and run the command again, or import other sources with --from file:LAYOUT. Nothing was imported"
    }
}

/// Finds SDK caches.
public enum SDKCacheFinder {
    /// Looks in every place `selection` names: the keyring's item attributes (no secret is read,
    /// nothing is unlocked) and the files' existence.
    ///
    /// - Parameter keyring: `nil` leaves the keyring out (for `auto` where no Secret Service runs).
    public static func survey(
        _ selection: SDKCacheSelection, keyring: (any SDKKeyring)?, environment: [String: String]
    ) throws -> SDKCacheSurvey {
        var survey = SDKCacheSurvey(found: [], missing: [], signalFiles: [], foundAgain: [])
        var seenItems: Set<String> = []
        var seenFiles: Set<String> = []
        for (layout, keyringLayouts, includeFiles) in selection.places {
            if let keyring {
                for keyringLayout in keyringLayouts {
                    let items = try keyring.items(matching: keyringLayout.searchAttributes)
                    if items.isEmpty {
                        let attributes = keyringLayout.searchAttributes.map(\.description).joined(separator: ", ")
                        survey.missing.append("secret-service:\(layout) [\(keyringLayout.writer): \(attributes)]")
                    }
                    for item in items {
                        let location = SDKCacheLocation(layout: layout, place: .keyring(item, keyringLayout))
                        if seenItems.insert(item.id).inserted {
                            survey.found.append(location)
                        } else {
                            survey.foundAgain.append(location.description)
                        }
                    }
                }
            }
            guard includeFiles else { continue }
            for file in layout.files(environment: environment) {
                var info = stat()
                guard stat(file.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                    survey.missing.append("file:\(layout) \(file.path)")
                    continue
                }
                guard info.st_size > 0 else {
                    survey.signalFiles.append("file:\(layout) \(file.path)")
                    continue
                }
                let location = SDKCacheLocation(layout: layout, place: .file(file, size: Int(info.st_size)))
                guard seenFiles.insert(file.path).inserted else {
                    survey.foundAgain.append(location.description)
                    continue
                }
                survey.found.append(location)
            }
        }
        return survey
    }
}

/// What importing SDK caches did.
public struct SDKImportReport: Sendable {
    /// Each cache read, with the number of entries it held (0: an empty cache).
    public var sources: [(location: SDKCacheLocation, entries: Int)]
    /// Items written (one per identity; a later source wins over an earlier one).
    public var imported: Int
    public var added: Int
    public var replaced: Int
    /// Entries not imported, each path prefixed with its source's selection.
    public var skipped: [ImportIssue]
    public var adjusted: [ImportIssue]

    /// Entries in all sources.
    public var entries: Int { sources.reduce(0) { $0 + $1.entries } }
}

extension CacheInterchange {
    /// Reads every cache in `locations` and saves their items in one atomic batch.
    ///
    /// All caches are read and decoded before anything is written: a locked keyring
    /// (``SDKKeyringLockedError``, checked before any secret is read), an unreadable file or a
    /// cache that does not decode (``InterchangeError`` naming the location, never its content)
    /// leaves the store unchanged.
    public func importSDKCaches(_ locations: [SDKCacheLocation], keyring: (any SDKKeyring)?) throws -> SDKImportReport {
        var keyringItems: [SDKKeyringItem] = []
        var locked: [String: [String]] = [:]
        for location in locations {
            guard case .keyring(let item, _) = location.place else { continue }
            keyringItems.append(item)
            if item.isLocked { locked[item.collection, default: []].append(location.description) }
        }
        if let first = locked.min(by: { $0.key < $1.key }) {
            throw SDKKeyringLockedError(collection: first.key, sources: first.value)
        }
        var secrets: [String: Data] = [:]
        if !keyringItems.isEmpty {
            guard let keyring else { preconditionFailure("keyring locations without a keyring") }
            secrets = try keyring.secrets(of: keyringItems)
        }

        var collector = Collector()
        var report = SDKImportReport(sources: [], imported: 0, added: 0, replaced: 0, skipped: [], adjusted: [])
        for location in locations {
            let raw: Data
            switch location.place {
            case .keyring(let item, _):
                raw = secrets[item.id] ?? Data()
            case .file(let file, _):
                guard let content = try PrivateFile.read(file.path, limit: ImportDecoder.sizeLimit) else {
                    throw InterchangeError.cannotRead(path: file.path, reason: "no such file (it was removed while importing)")
                }
                raw = content
            }
            let source = location.description
            guard let json = try location.encoding.msalJSON(from: raw, source: source) else {
                report.sources.append((location, 0))
                continue
            }
            let decoded = try ImportDecoder.decode(json, source: source, format: .msalJSON, accessGroup: accessGroup)
            for item in decoded.items { collector.add(item) }
            report.sources.append((location, decoded.entries))
            report.skipped += decoded.skipped.map { ImportIssue(path: "\(location.selection) \($0.path)", reason: $0.reason) }
            report.adjusted += decoded.adjusted.map { ImportIssue(path: "\(location.selection) \($0.path)", reason: $0.reason) }
        }
        let result = collector.items.isEmpty ? BatchResult() : try store.apply(collector.items.map(StoreOperation.save))
        report.imported = collector.items.count
        report.added = result.added
        report.replaced = result.replaced
        return report
    }
}
