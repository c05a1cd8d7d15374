import CacheStore
import CacheStoreMemory
import Foundation
import TokenCache
import TokenCacheInterchange
import TokenCacheSchema

/// What the engine writes for one user's first sign-in, taken from the engine itself: the
/// response saved into an empty memory store, then read back. The seeders write these through the
/// store's batch API, so a seeded store holds what a million sign-ins through the engine would
/// leave, without a million read-modify-writes.
struct SignIn {
    /// The user's own partitions: their items and lookup keys.
    let own: [StoreOperation]
    /// Items outside them, shared by every user (app metadata, account metadata): merged over the
    /// seeded users by ``SharedItems``.
    let shared: [StoreItem]
    /// The same cache as one MSAL JSON blob (the blob-per-user layout), when asked for.
    let blob: Data?

    init(user: Int, blob: Bool) throws {
        let store = MemoryStore(accessGroups: try AccessGroups([LoadUsers.group]))
        let cache = try TokenCache(store: store)
        try cache.save(LoadUsers.response(user), for: LoadUsers.request)
        let home = LoadUsers.homeAccountId(user).lowercased()
        var own: [StoreOperation] = []
        var shared: [StoreItem] = []
        for item in try store.allItems() {
            if item.account.lowercased().hasPrefix(home) { own.append(.save(item)) } else { shared.append(item) }
        }
        let key = LookupKey.username(LoadUsers.username(user))
        for partition in try store.partitions(withLookupKey: key) ?? [] {
            own.append(.setLookupKeys(partition, keys: [key]))
        }
        self.own = own
        self.shared = shared
        self.blob = blob ? try CacheInterchange(store: store).export(.msalJSON).data : nil
    }
}

/// The shared items of many sign-ins, merged as the engine would have left them after all of them:
/// identical records kept once, account metadata (every account's sign-in state) united.
struct SharedItems {
    private var records: [ItemIdentity: StoreItem] = [:]
    /// Account metadata, kept decoded: re-encoding it at every merge would cost each seeder time
    /// quadratic in its users.
    private var metadata: [ItemIdentity: (group: String, value: AccountMetadata)] = [:]

    /// The merged items.
    func items() throws -> [StoreItem] {
        try Array(records.values) + metadata.values.map { try $0.value.storeItem(accessGroup: $0.group) }
    }

    var isEmpty: Bool { records.isEmpty && metadata.isEmpty }

    mutating func merge(_ item: StoreItem) throws {
        if AccountMetadata.isStored(asType: item.type) {
            let other = try AccountMetadata(storeItem: item)
            if var merged = metadata[item.identity]?.value {
                merged.accounts.merge(other.accounts) { mine, _ in mine }
                metadata[item.identity] = (item.accessGroup, merged)
            } else {
                metadata[item.identity] = (item.accessGroup, other)
            }
            return
        }
        if let existing = records[item.identity], existing.data != item.data || existing.generic != item.generic {
            throw LoadError.seeding("users' sign-ins write different \(item.type.map { String($0) } ?? "untyped") items under one identity (\(item.account) / \(item.service)); the seeder cannot merge them")
        }
        records[item.identity] = item
    }

    mutating func merge(_ other: SharedItems) throws {
        for item in try other.items() { try merge(item) }
    }

    /// One record a line: group, account, service, type, generic, data, each in Base64.
    func encoded() throws -> Data {
        var text = ""
        for item in try items() {
            let fields = [Data(item.accessGroup.utf8), Data(item.account.utf8), Data(item.service.utf8),
                          Data((item.type.map { String($0) } ?? "").utf8), item.generic ?? Data(), item.data]
            text += fields.map { $0.base64EncodedString() }.joined(separator: "\t") + (item.generic == nil ? "\t-" : "\t+") + "\n"
        }
        return Data(text.utf8)
    }

    static func decoded(_ data: Data) throws -> SharedItems {
        var shared = SharedItems()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let bytes = fields.prefix(6).compactMap { Data(base64Encoded: $0) }
            guard fields.count == 7, bytes.count == 6 else { throw LoadError.seeding("a seeder's shared-items file is malformed") }
            let text = bytes.map { String(decoding: $0, as: UTF8.self) }
            try shared.merge(StoreItem(
                accessGroup: text[0], account: text[1], service: text[2], generic: fields[6] == "+" ? bytes[4] : nil,
                type: UInt32(text[3]), data: bytes[5]))
        }
        return shared
    }
}
