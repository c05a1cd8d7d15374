#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
