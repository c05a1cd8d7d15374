#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import TokenCacheJSON
import TokenCacheSchema

/// A file format the store can import.
///
/// More cases follow as readers are added (the ADAL formats); code that switches over the cases
/// should expect that.
public enum ImportFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The MSAL unified JSON cache (MSAL.NET 3+, MSAL Python, msal-node, MSAL Java, MSAL Go, ADAL.NET 5):
    /// one object with the sections `AccessToken`, `RefreshToken`, `IdToken`, `Account`, `AppMetadata`.
    case msalJSON = "msal-json"
    /// The MSAL.NET 2.x "dictionary" form: an array of `{"Key": "access_tokens", "Value": ["<entry JSON>", …]}`.
    case msalV2 = "msal-v2"
    /// Raw store items, lossless: a JSON array of `{access_group, account, service, generic, type, data}`.
    case keychainItems = "keychain-items"
    /// The ADAL.NET v3 binary blob (ADAL.NET 3–5, and MSAL.NET's legacy cache).
    case adalV3 = "adal-v3"
    /// ADAL for macOS's serialized cache (a keyed archive of `ADTokenCacheStoreItem`s).
    case adalMacOS = "adal-macos"
    /// One ADAL for iOS keychain item's payload (ADAL Objective-C 1.x, 2.x, ≥ 2.7): a keyed archive
    /// whose root object is an `ADTokenCacheStoreItem`.
    case adalKeychainItem = "adal-keychain-item"

    public var description: String { rawValue }

    /// Recognizes a format by content, or `nil` when the content is none of them.
    ///
    /// A blob starting with the little-endian version 3 is ADAL.NET's; a keyed archive whose root is
    /// an `ADTokenCacheStoreItem` is one ADAL keychain item, any other binary property list ADAL
    /// macOS's archive; a JSON object is MSAL unified JSON; a JSON array whose elements have
    /// `Key` and `Value` is the MSAL.NET 2.x dictionary; any other array (including an empty one)
    /// is keychain items.
    public static func detect(_ data: Data) -> ImportFormat? {
        if let binary = detectBinary(data) { return binary }
        guard let value = try? JSONValue.parse(data) else { return nil }
        return detect(value)
    }

    static func detectBinary(_ data: Data) -> ImportFormat? {
        if ADALNetV3Blob.looksLikeBlob(data) { return .adalV3 }
        if KeyedArchive.isKeyedArchive(data) {
            if case .object(let root)? = try? KeyedArchive.decode(data),
                LegacyTokenCacheItem.acceptedClassNames.contains(root.className)
            {
                return .adalKeychainItem
            }
            return .adalMacOS
        }
        return nil
    }

    static func detect(_ value: JSONValue) -> ImportFormat? {
        switch value {
        case .object:
            return .msalJSON
        case .array(let elements):
            guard let first = elements.first?.objectValue else { return elements.isEmpty ? .keychainItems : nil }
            if first["Key"] != nil || first["Value"] != nil { return .msalV2 }
            if first["access_group"] != nil || first["service"] != nil { return .keychainItems }
            return nil
        default:
            return nil
        }
    }
}

/// A file format the store can export.
public enum ExportFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// MSAL unified JSON in the form MSAL.NET writes; merges into an existing file.
    case msalJSON = "msal-json"
    /// Raw store items, lossless.
    case keychainItems = "keychain-items"
    /// The ADAL.NET v3 blob: the users' refresh tokens, for ADAL.NET apps.
    case adalV3 = "adal-v3"

    public var description: String { rawValue }
}
