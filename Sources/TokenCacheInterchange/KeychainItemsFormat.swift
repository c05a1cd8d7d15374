import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `keychain-items` interchange format: a JSON array of raw items, lossless between stores.
///
/// Each element is `{"access_group", "account", "service", "generic", "type", "data"}`:
/// `generic` is a UTF-8 string, or `{"base64": "…"}` when its bytes are not UTF-8, or `null` when
/// absent; `type` is a number or `null`; `data` is standard Base64. Writers may add `created` and
/// `modified` (ISO 8601); readers ignore unknown keys.
public enum KeychainItemsFormat {
    /// Options for ``encode(_:options:)``.
    public struct EncodeOptions: Sendable {
        /// Whether to write `data`. Without it the output carries `data_size` instead, so it can be
        /// shown to a person without revealing tokens.
        public var includeData: Bool
        /// Whether to write the store's `created`/`modified` dates.
        public var includeDates: Bool

        public init(includeData: Bool = true, includeDates: Bool = false) {
            self.includeData = includeData
            self.includeDates = includeDates
        }
    }

    /// Encodes the items as a pretty-printed JSON array (keys sorted, so output is stable).
    public static func encode(_ items: [StoreItem], options: EncodeOptions = EncodeOptions()) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and nulls only: encoding cannot fail.
        let data = try! encoder.encode(items.map { Element($0, options: options) })
        return data + Data("\n".utf8)
    }

    /// Decodes a `keychain-items` document.
    ///
    /// - Parameter source: names the input in errors (a file path, `stdin`).
    /// - Throws: ``KeychainItemsFormatError`` naming the source, the element index and the field.
    public static func decode(_ data: Data, source: String) throws(KeychainItemsFormatError) -> [StoreItem] {
        do {
            return try JSONDecoder().decode([Element].self, from: data).map { $0.item }
        } catch let error as KeychainItemsFormatError {
            throw error
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw .notJSON(source: source)
        } catch let error as DecodingError {
            throw KeychainItemsFormatError(error, source: source)
        } catch {
            throw .notJSON(source: source)
        }
    }

    /// One element of the array, as written and read.
    private struct Element: Codable {
        var accessGroup: String
        var account: String
        var service: String
        var generic: Generic?
        var type: UInt32?
        var data: String?
        var dataSize: Int?
        var created: String?
        var modified: String?

        enum CodingKeys: String, CodingKey {
            case accessGroup = "access_group", account, service, generic, type, data
            case dataSize = "data_size", created, modified
        }

        enum Generic: Codable {
            case text(String)
            case bytes(Data)

            private enum Keys: String, CodingKey { case base64 }

            init(from decoder: any Decoder) throws {
                if let text = try? decoder.singleValueContainer().decode(String.self) {
                    self = .text(text)
                    return
                }
                let container = try decoder.container(keyedBy: Keys.self)
                let text = try container.decode(String.self, forKey: .base64)
                guard let bytes = Data(base64Encoded: text) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .base64, in: container, debugDescription: "standard Base64")
                }
                self = .bytes(bytes)
            }

            func encode(to encoder: any Encoder) throws {
                switch self {
                case .text(let text):
                    var container = encoder.singleValueContainer()
                    try container.encode(text)
                case .bytes(let bytes):
                    var container = encoder.container(keyedBy: Keys.self)
                    try container.encode(bytes.base64EncodedString(), forKey: .base64)
                }
            }

            var bytes: Data {
                switch self {
                case .text(let text): Data(text.utf8)
                case .bytes(let bytes): bytes
                }
            }
        }

        init(_ item: StoreItem, options: EncodeOptions) {
            accessGroup = item.accessGroup
            account = item.account
            service = item.service
            generic = item.generic.map { bytes in
                if let text = String(data: bytes, encoding: .utf8), Data(text.utf8) == bytes { return .text(text) }
                return .bytes(bytes)
            }
            type = item.type
            if options.includeData {
                data = item.data.base64EncodedString()
            } else {
                dataSize = item.data.count
            }
            if options.includeDates {
                // A date a store file can hold but no clock shows (NaN, beyond the year 9999) is left out.
                let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
                func formatted(_ date: Date?) -> String? {
                    guard let seconds = date?.timeIntervalSince1970, seconds.isFinite,
                        seconds >= -62_135_596_800, seconds <= 253_402_300_799
                    else { return nil }
                    return date?.formatted(style)
                }
                created = formatted(item.created)
                modified = formatted(item.modified)
            }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            accessGroup = try container.decode(String.self, forKey: .accessGroup)
            account = try container.decode(String.self, forKey: .account)
            service = try container.decode(String.self, forKey: .service)
            generic = try container.decodeIfPresent(Generic.self, forKey: .generic)
            // Read as a Double so that an out-of-range number is reported on this field, not as bad JSON.
            if let number = try container.decodeIfPresent(Double.self, forKey: .type) {
                guard let code = UInt32(exactly: number) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .type, in: container, debugDescription: "an integer from 0 to 4294967295 or null")
                }
                type = code
            }
            let text = try container.decode(String.self, forKey: .data)
            guard Data(base64Encoded: text) != nil else {
                throw DecodingError.dataCorruptedError(forKey: .data, in: container, debugDescription: "standard Base64")
            }
            data = text
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(accessGroup, forKey: .accessGroup)
            try container.encode(account, forKey: .account)
            try container.encode(service, forKey: .service)
            try container.encode(generic, forKey: .generic)  // null when absent
            try container.encode(type, forKey: .type)  // null when absent
            try container.encodeIfPresent(data, forKey: .data)
            try container.encodeIfPresent(dataSize, forKey: .dataSize)
            try container.encodeIfPresent(created, forKey: .created)
            try container.encodeIfPresent(modified, forKey: .modified)
        }

        var item: StoreItem {
            StoreItem(
                accessGroup: accessGroup, account: account, service: service,
                generic: generic?.bytes, type: type, data: Data(base64Encoded: data ?? "") ?? Data())
        }
    }
}
