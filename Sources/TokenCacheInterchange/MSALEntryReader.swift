import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheJSON
import TokenCacheSchema

/// Turns one entry of an MSAL JSON section into the unified items it stands for.
///
/// The entry's key in the file is not used: the items are keyed by their fields, as IdentityCore
/// keys them. Every writer's variants are accepted (see `docs/formats.md`).
struct MSALEntryReader {
    /// What became of an entry.
    enum Outcome {
        /// The entry's item, plus any tenant-profile accounts derived from it (msal-node).
        case items(StoreItem, derived: [StoreItem], adjustment: String?)
        /// The entry cannot be represented as a unified item; the text says why.
        case skipped(String)
        /// A `null` entry, which MSAL.NET skips too.
        case ignored
    }

    let accessGroup: String

    func read(_ value: JSONValue, section: MSALSection) throws(SchemaError) -> Outcome {
        let object: JSONObject
        switch value {
        case .null: return .ignored
        case .object(let entry): object = entry
        default: throw .notAnObject(found: value.kindName, item: nil)
        }
        switch section {
        case .accessToken, .refreshToken, .idToken:
            return try credential(object, section: section)
        case .account:
            return try account(object)
        case .appMetadata:
            let metadata = try AppMetadata(jsonObject: object)
            return .items(try metadata.storeItem(accessGroup: accessGroup), derived: [], adjustment: nil)
        }
    }

    // MARK: - Credentials

    /// msal-node's camelCase members and the snake-case members the schema reads. The camelCase
    /// original is kept too, so msal-node still finds it after a round trip.
    static let camelCaseAliases: [(camel: String, snake: String)] = [
        ("userAssertionHash", Credential.Field.userAssertionHash),
        ("tokenType", Credential.Field.tokenType),
        ("keyId", Credential.Field.keyIdSnakeCase),
        ("requestedClaims", Credential.Field.requestedClaims),
        ("homeAccountId", Credential.Field.homeAccountId),
        ("clientId", Credential.Field.clientId),
        ("familyId", Credential.Field.familyId),
    ]

    private func credential(_ entry: JSONObject, section: MSALSection) throws(SchemaError) -> Outcome {
        var object = entry
        for (camel, snake) in Self.camelCaseAliases {
            // Only text is copied: a camelCase member of another kind is left alone, as an unknown field.
            if case .string(let text)? = object[camel], object[snake] == nil || object[snake] == .null {
                object[snake] = .string(text)
            }
        }
        // Pre-release MSAL Python wrote `target` as an array of scopes.
        if case .array(let scopes)? = object[Credential.Field.target] {
            let strings = scopes.compactMap(\.stringValue)
            guard strings.count == scopes.count else {
                throw .invalidField(Credential.Field.target, reason: "must be a string of scopes (an array holds something else)", item: nil)
            }
            object[Credential.Field.target] = .string(strings.joined(separator: " "))
        }
        switch object[Credential.Field.secret] {
        case nil, .null?: return .skipped("no 'secret': not a token")
        default: break
        }
        let declared = try PayloadText.string(object[Credential.Field.credentialType], field: Credential.Field.credentialType)
        var credential = try Credential(jsonObject: object, typeHint: section.defaultCredentialType)
        var adjustment: String?
        let isExtended = section == .accessToken && declared.map { $0.lowercased() == "atext" } == true
        if !isExtended, !section.accepts(credential.credentialType), let kind = section.defaultCredentialType {
            if declared != nil {
                adjustment = "credential_type \(quotedKey(declared!)) does not belong in \(section.rawValue); stored as \(kind)"
            }
            credential.credentialType = kind
        }
        return .items(try credential.storeItem(accessGroup: accessGroup), derived: [], adjustment: adjustment)
    }

    // MARK: - Accounts

    private func account(_ entry: JSONObject) throws(SchemaError) -> Outcome {
        var object = entry
        var adjustment: String?
        let typeValue = object[Account.Field.authorityType]
        switch typeValue {
        case nil, .null?:
            object[Account.Field.authorityType] = .string(AccountType.mssts.jsonString)
            adjustment = "no authority_type; stored as MSSTS"
        case .string(let name)?:
            if AccountType(jsonString: name).map({ $0 == .other }) ?? true {
                object[Account.Field.authorityType] = .string(AccountType.mssts.jsonString)
                adjustment = "authority_type \(quotedKey(name)) is not one of MSSTS, AAD, MSA, ADFS; stored as MSSTS"
            }
        default:
            break  // the schema names the wrong kind
        }
        let account = try Account(jsonObject: object)
        let item = try account.storeItem(accessGroup: accessGroup)
        return .items(item, derived: tenantProfileAccounts(of: account), adjustment: adjustment)
    }

    /// msal-node keeps one account entry per home account and lists the other tenants it has
    /// signed in to in `tenantProfiles` (an array of JSON strings); each becomes an account record
    /// of its own, as the other libraries store them.
    private func tenantProfileAccounts(of account: Account) -> [StoreItem] {
        guard case .array(let profiles)? = account.additionalFields["tenantProfiles"] else { return [] }
        var items: [StoreItem] = []
        for element in profiles {
            let profile: JSONObject
            switch element {
            case .string(let text):
                guard let parsed = try? JSONValue.parse(text).objectValue else { continue }
                profile = parsed
            case .object(let object):
                profile = object
            default:
                continue
            }
            guard let tenant = profile["tenantId"]?.stringValue, !tenant.isEmpty, ItemKey.normalized(tenant) != ItemKey.normalized(account.realm ?? "") else { continue }
            var copy = account
            copy.additionalFields["tenantProfiles"] = nil
            copy.realm = tenant
            copy.localAccountId = profile["localAccountId"]?.stringValue ?? account.localAccountId
            copy.name = profile["name"]?.stringValue ?? account.name
            if let item = try? copy.storeItem(accessGroup: accessGroup) { items.append(item) }
        }
        return items
    }
}

/// Reading a field's text the way the schema does (strings, numbers as their text, `null` as absent).
enum PayloadText {
    static func string(_ value: JSONValue?, field: String) throws(SchemaError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .number(let number)?: return number.text
        case let other?: throw .invalidField(field, reason: "must be a string, found \(other.kindName == "object" || other.kindName == "array" ? "an" : "a") \(other.kindName)", item: nil)
        }
    }
}
