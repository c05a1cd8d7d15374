import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The data keys that seal a Redis store's payloads, one per access group, from the source the store
/// spec names. Keys never go to Redis; only the envelopes' 8-byte key-id prefix does.
struct RedisDataKeys: Sendable {
    /// `nil` for `key=none`: payloads stored as given.
    let keys: [String: DataKey]?

    init(_ source: RedisConfiguration.KeySource, groups: AccessGroups, environment: [String: String]) throws {
        switch source {
        case .none:
            keys = nil
        case .environment(let name):
            guard let text = environment[name], !text.isEmpty else {
                throw RedisError.keyUnavailable(
                    source: source.description,
                    reason: "\(name) is not set; set it to a Base64 256-bit key (e.g. `openssl rand -base64 32`), "
                        + "or use key=file:PATH in the store spec")
            }
            let key: DataKey
            do { key = try DataKey(base64: text) } catch {
                throw RedisError.keyUnavailable(source: source.description, reason: "\(name) does not hold a key: \(error)")
            }
            keys = Dictionary(uniqueKeysWithValues: groups.all.map { ($0, key) })
        case .file(let path):
            let file = KeyFile(path: path)
            var found: [String: DataKey] = [:]
            for group in groups.all {
                found[group] = try file.existingKey(for: group, id: nil) ?? file.createKey(for: group)
            }
            keys = found
        }
    }

    /// Seals `payload` for `identity`, or returns it as is without keys.
    func seal(_ payload: Data, _ identity: ItemIdentity) throws -> (Data, sealed: Bool) {
        guard let keys else { return (payload, false) }
        guard let key = keys[identity.accessGroup] else {
            throw RedisError.keyUnavailable(source: "?", reason: "no key for access group '\(identity.accessGroup)'")
        }
        return (try PayloadEnvelope.seal(payload, identity: identity, key: key), true)
    }

    /// Opens a sealed payload.
    func open(_ envelope: Data, _ identity: ItemIdentity) throws -> Data {
        guard let key = keys?[identity.accessGroup] else {
            throw RedisError.keyUnavailable(
                source: "none",
                reason: "the payload of item (group '\(identity.accessGroup)', account '\(identity.account)', service "
                    + "'\(identity.service)') is sealed; open the store with its key (key=file:PATH or key=env:NAME)")
        }
        return try PayloadEnvelope.open(envelope, identity: identity, key: key)
    }
}
