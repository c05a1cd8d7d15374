@_spi(Hex) import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import TokenCacheJSON
import TokenCacheSchema

/// How `tokencache dump` shows an item: its attributes and its payload decoded, secrets hidden.
public enum PayloadView {
    /// The marker shown in place of a secret string: `<redacted: 812 chars>`.
    public static func marker(for secret: String) -> String {
        "<redacted: \(secret.count) chars>"
    }

    /// The marker shown in place of any redacted value: its kind and size, never its content.
    public static func marker(for value: JSONValue) -> String {
        switch value {
        case .string(let text): marker(for: text)
        case .number: "<redacted: a number>"
        case .bool: "<redacted: a boolean>"
        case .null: "<redacted: null>"
        case .array(let elements): "<redacted: an array of \(elements.count)>"
        case .object(let object): "<redacted: an object of \(object.count) members>"
        }
    }

    /// The marker shown in place of a payload that is not a JSON object (or does not decode): its
    /// size and the first 12 hex digits of its SHA-256, enough to tell two payloads apart.
    public static func marker(forPayload data: Data) -> String {
        let digest = lowercaseHex(SHA256.hash(data: data).prefix(6))
        return "<redacted: \(data.count) bytes, sha256 \(digest)…>"
    }

    /// `payload` (an item's decoded payload) with every member that is not known to be non-secret
    /// for the item's kind redacted, whatever its JSON type (see ``RedactionAllowList``). A payload
    /// that is not a JSON object shows nothing.
    public static func redacted(_ payload: JSONValue, type: UInt32?) -> JSONValue {
        guard case .object(let object) = payload else { return .string(marker(for: payload)) }
        return .object(RedactionAllowList.redact(object, allowed: RedactionAllowList.members(forType: type, payload: object)))
    }

    /// The item as a JSON object: `access_group`, `account`, `service`, `generic` (a UTF-8 string,
    /// `{"base64": …}` or `null`), `type`, `created`, `modified`, and `payload`, the decoded JSON
    /// payload with every member not known to be non-secret redacted unless `revealSecrets`. A keyed
    /// archive (a legacy ADAL item) is decoded too, as `{"$class": …, <fields>}` with dates in ISO
    /// 8601 and bytes as `{"base64": …}`. Any other payload (not a JSON object, or not decodable) is
    /// shown as `data`: Base64 when revealed, else only its size and a short hash.
    public static func object(for item: StoreItem, revealSecrets: Bool) -> JSONObject {
        var object: JSONObject = [
            "access_group": .string(item.accessGroup),
            "account": .string(item.account),
            "service": .string(item.service),
        ]
        if let generic = item.generic {
            if let text = String(data: generic, encoding: .utf8), Data(text.utf8) == generic {
                object["generic"] = .string(text)
            } else {
                object["generic"] = ["base64": .string(generic.base64EncodedString())]
            }
        } else {
            object["generic"] = .null
        }
        object["type"] = item.type.map { .number(JSONNumber(Int64($0))) } ?? .null
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let created = item.created { object["created"] = .string(created.formatted(style)) }
        if let modified = item.modified { object["modified"] = .string(modified.formatted(style)) }
        if let payload = try? JSONValue.parse(item.data, allowTrailingCommas: false), case .object = payload {
            object["payload"] = revealSecrets ? payload : redacted(payload, type: item.type)
        } else if KeyedArchive.isKeyedArchive(item.data), let archived = try? KeyedArchive.decode(item.data),
            case .object(let archivedObject) = json(archived)
        {
            object["payload"] = revealSecrets ? .object(archivedObject) : .object(RedactionAllowList.redactArchive(archivedObject))
        } else {
            object["data"] = .string(revealSecrets ? item.data.base64EncodedString() : marker(forPayload: item.data))
        }
        return object
    }

    /// An archived value as JSON, for display.
    static func json(_ value: ArchivedValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .number(JSONNumber(number))
        case .real(let number): return JSONNumber(text: String(number)).map(JSONValue.number) ?? .string(String(number))
        case .string(let text): return .string(text)
        case .date(let date): return .string(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        case .data(let bytes): return ["base64": .string(bytes.base64EncodedString())]
        case .array(_, let values): return .array(values.map(json))
        case .dictionary(_, let keys, let values):
            if keys.allSatisfy({ $0.stringValue != nil }) {
                return .object(JSONObject(zip(keys, values).map { ($0.stringValue!, json($1)) }))
            }
            return .array(zip(keys, values).map { .object(["key": json($0), "value": json($1)]) })
        case .object(let object):
            return .object(JSONObject([("$class", JSONValue.string(object.className))] + object.fields.map { ($0.key, json($0.value)) }))
        }
    }

    /// Pretty-printed JSON: two-space indentation, members in their order, a newline at the end.
    public static func prettyPrinted(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: 0, to: &out)
        return out + "\n"
    }

    private static func write(_ value: JSONValue, indent: Int, to out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closing = String(repeating: "  ", count: indent)
        switch value {
        case .object(let object) where !object.isEmpty:
            out += "{\n"
            for (index, member) in object.enumerated() {
                out += pad + JSONValue.string(member.key).serializedString() + ": "
                write(member.value, indent: indent + 1, to: &out)
                out += index == object.count - 1 ? "\n" : ",\n"
            }
            out += closing + "}"
        case .array(let elements) where !elements.isEmpty:
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += pad
                write(element, indent: indent + 1, to: &out)
                out += index == elements.count - 1 ? "\n" : ",\n"
            }
            out += closing + "]"
        default:
            out += value.serializedString()
        }
    }
}
