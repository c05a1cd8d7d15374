import CSQLite
@_spi(Hex) import CacheStore
import CacheStoreEncryption
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Encryption at rest: sealing and opening payloads, telling damaged rows, and each group's key.
extension SQLiteStore {
    // MARK: - Encryption

    /// The bytes to store for `item` and its envelope column: sealed when the group has a key.
    ///
    /// `plainGroups` are the groups this write transaction already found without a recorded key (no
    /// other connection can record one while it holds the write lock), so a batch reads each
    /// group's key record once, not once per item.
    func storedPayload(_ item: StoreItem, on connection: SQLiteConnection, plainGroups: inout [String]) throws -> (Data, Int64) {
        if let key = keys[item.accessGroup] {
            return (try PayloadEnvelope.seal(item.data, identity: item.identity, key: key), StoreSchema.sealedEnvelope)
        }
        if let error = unavailableKeys[item.accessGroup] { throw error }
        // Opened without encryption: never add plain payloads to a group another opener sealed.
        if !encrypted, !plainGroups.contains(item.accessGroup) {
            if try Self.recordedKey(item.accessGroup, connection: connection) != nil {
                throw EncryptionError.storeOpenedWithoutKey(accessGroup: item.accessGroup, storePath: path)
            }
            plainGroups.append(item.accessGroup)
        }
        return (item.data, StoreSchema.plainEnvelope)
    }

    /// A row's payload as stored: usable, or damaged (see ``DamagedItem``).
    enum StoredPayload {
        case sound(Data)
        case damaged(DamagedItem.Reason)
    }

    /// The groups whose payloads are sealed, when opened without encryption: those the file records
    /// a key for. Nil when opened with encryption, where every open group has a key (or an
    /// unavailable one) from the open on, so every group is sealed and nothing needs reading.
    func sealedGroups(on connection: SQLiteConnection) throws(SQLiteStoreError) -> Set<String>? {
        if encrypted { return nil }
        var sealed: Set<String> = []
        for group in accessGroups.all where try Self.recordedKey(group, connection: connection) != nil {
            sealed.insert(group)
        }
        return sealed
    }

    /// Opens `item`'s payload. A plain payload in a sealed group and a sealed payload that fails to
    /// open are damaged; a missing key is not damage (the whole group is unreadable) and throws.
    func payload(of item: StoreItem, envelope: Int64, sealedGroups: Set<String>?) throws(EncryptionError) -> StoredPayload {
        if envelope == StoreSchema.plainEnvelope {
            let sealed = sealedGroups?.contains(item.accessGroup) ?? true
            return sealed ? .damaged(.unsealedInSealedGroup) : .sound(item.data)
        }
        do {
            return .sound(try openPayload(item))
        } catch {
            switch error {
            case .authenticationFailed, .sealedWithAnotherKey: return .damaged(.failedAuthentication)
            case .malformedEnvelope, .unsupportedEnvelope: return .damaged(.malformedEnvelope)
            default: throw error
            }
        }
    }

    func openPayload(_ item: StoreItem) throws(EncryptionError) -> Data {
        guard let key = keys[item.accessGroup] else {
            throw unavailableKeys[item.accessGroup] ?? .storeOpenedWithoutKey(accessGroup: item.accessGroup, storePath: path)
        }
        return try PayloadEnvelope.open(item.data, identity: item.identity, key: key)
    }

    /// The key id and source kind the file records for `group`, if any.
    static func recordedKey(_ group: String, connection: SQLiteConnection) throws(SQLiteStoreError) -> (id: Data, source: String)? {
        let statement = try connection.statement("SELECT key_id, source FROM data_keys WHERE access_group = ?")
        defer { statement.reset() }
        _ = statement.bind(group, at: 1)
        let code = statement.step()
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw connection.error(code, "read data keys") }
        return (statement.data(0) ?? Data(), statement.string(1))
    }

    struct PreparedKeys {
        var keys: [String: DataKey] = [:]
        var unavailable: [String: EncryptionError] = [:]
        var status: [String: KeyStatus] = [:]
        /// The key file each group's key was found in, when it came from one.
        var keyFiles: [String: String] = [:]
    }

    /// Finds or creates each group's key and seals the group's plain payloads, in one transaction.
    static func prepareKeys(_ encryption: Encryption, groups: AccessGroups, connection: SQLiteConnection) throws -> PreparedKeys {
        guard let firstSource = encryption.keySources.first else {
            throw EncryptionError.malformedKey(reason: "encryption was asked for with no key source")
        }
        var sealedAny = false
        let prepared = try connection.writeTransaction("prepare data keys") { () throws -> PreparedKeys in
            var prepared = PreparedKeys()
            for group in groups.all {
                var found: (DataKey, KeySourceKind)?
                var foundIn: (any DataKeySource)?
                var isNewKey = false
                if let recorded = try recordedKey(group, connection: connection) {
                    for source in encryption.keySources {
                        if let key = try? source.existingKey(for: group, id: recorded.id) {
                            found = (key, source.kind)
                            foundIn = source
                            break
                        }
                    }
                    guard found != nil else {
                        let error = EncryptionError.keyUnavailable(
                            accessGroup: group, keyID: lowercaseHex(recorded.id),
                            keptIn: recorded.source, searched: encryption.keySources.map(\.description), storePath: connection.path)
                        prepared.unavailable[group] = error
                        prepared.status[group] = .unavailable(error)
                        continue
                    }
                } else if connection.readOnly != nil {
                    // A read-only store cannot record a key: the group is read as the plain group it is.
                    prepared.status[group] = .plain
                    continue
                } else {
                    for source in encryption.keySources {
                        if let key = try source.existingKey(for: group, id: nil) {
                            found = (key, source.kind)
                            foundIn = source
                            break
                        }
                    }
                    if found == nil {
                        found = (try firstSource.createKey(for: group), firstSource.kind)
                        foundIn = firstSource
                    }
                    isNewKey = true
                    let statement = try connection.statement(
                        "INSERT INTO data_keys (access_group, key_id, source, created) VALUES (?, ?, ?, ?)")
                    defer { statement.reset() }
                    _ = statement.bind(group, at: 1)
                    _ = statement.bind(found!.0.id, at: 2)
                    _ = statement.bind(found!.1.rawValue, at: 3)
                    _ = statement.bind(Date().timeIntervalSince1970, at: 4)
                    let code = statement.step()
                    guard code == SQLITE_DONE else { throw connection.error(code, "record data key") }
                }
                let (key, kind) = found!
                prepared.keys[group] = key
                if let file = foundIn as? KeyFile { prepared.keyFiles[group] = file.path }
                prepared.status[group] = .available(keyID: key.idHex, source: kind)
                // The one-time migration of a group's plain payloads happens when its key is first
                // recorded, in the same transaction; afterwards a plain row in the group is damaged.
                if isNewKey, try sealPlainPayloads(group, key: key, connection: connection) > 0 { sealedAny = true }
                if isNewKey, try blindLookupKeys(group, key: key, connection: connection) > 0 { sealedAny = true }
            }
            return prepared
        }
        if sealedAny {
            // The plain payloads were in earlier WAL frames: checkpoint them away and truncate the log.
            _ = try? connection.integer("PRAGMA wal_checkpoint(TRUNCATE)", "truncate write-ahead log")
        }
        return prepared
    }

    /// Seals every plain payload of `group`; returns how many.
    static func sealPlainPayloads(_ group: String, key: DataKey, connection: SQLiteConnection) throws -> Int {
        let select = try connection.statement(
            "SELECT rowid, account, service, type, data FROM items WHERE access_group = ? AND envelope = 0")
        _ = select.bind(group, at: 1)
        var rows: [(Int64, ItemIdentity, Data)] = []
        while true {
            let code = select.step()
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                select.reset()
                throw connection.error(code, "read plain payloads")
            }
            let type = select.int64(3)
            let identity = ItemIdentity(
                accessGroup: group, account: select.string(1), service: select.string(2),
                type: type == StoreSchema.absentType ? nil : UInt32(truncatingIfNeeded: type))
            rows.append((select.int64(0), identity, select.data(4) ?? Data()))
        }
        select.reset()
        for (rowid, identity, data) in rows {
            let update = try connection.statement("UPDATE items SET data = ?, envelope = ? WHERE rowid = ?")
            defer { update.reset() }
            _ = update.bind(try PayloadEnvelope.seal(data, identity: identity, key: key), at: 1)
            _ = update.bind(StoreSchema.sealedEnvelope, at: 2)
            _ = update.bind(rowid, at: 3)
            let code = update.step()
            guard code == SQLITE_DONE else { throw connection.error(code, "seal plain payloads") }
        }
        return rows.count
    }
}
