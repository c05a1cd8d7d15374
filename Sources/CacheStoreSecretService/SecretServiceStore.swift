@_spi(Text) @_spi(Pause) import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A backend that keeps the store's items in the Secret Service (gnome-keyring, KWallet, KeePassXC).
///
/// **Partitions.** A keyring write costs 8–90 ms (gnome-keyring rewrites its whole file), so items
/// are not stored one per keyring item. Each *partition* — the items sharing an access group and an
/// `account` attribute (a home account and environment, a legacy ADAL user, an environment's app
/// metadata) — is one keyring item whose secret holds all of the partition's items with all their
/// attributes. Its Secret Service attributes are `xdg:schema` = `org.tokencache.Store`, `kind` =
/// `partition`, `store` (the ``Options/namespace``), `access-group`, `account`, `partition` (an exact
/// digest of group and account) and `schema-version`; its label names the account, never a secret.
///
/// **Reads** load every partition of the open access groups at once — one search per group and one
/// bulk `GetSecrets` call — and are then served from memory until the store's revision changes.
///
/// **Revision.** A keyring item of `kind` `revision` holds a random value that every batch replaces
/// after writing its partitions. ``changeStamp()`` reads it (one D-Bus round trip), so another
/// process's commit is noticed on the next call. A batch touching several partitions first marks the
/// revision `pending`; readers that meet a pending revision wait for it (up to 5 s, after which a
/// writer is presumed dead), so they see all of a batch or none of it.
///
/// **Batches** write each touched partition once. If a write fails, the partitions already written
/// are restored to their previous content (or deleted if they were new) and the error is thrown.
///
/// **Concurrency.** Processes are not serialised by the keyring: two processes writing the *same
/// partition* at the same moment keep the last write (each re-reads before writing, so the window
/// is the few milliseconds of one write). Writes to different partitions never interfere. Two
/// processes creating the same partition's first items at once settle on one keyring item holding
/// both writes (``PartitionSettlement``).
///
/// **Damage.** A partition item whose secret does not decode is skipped and counted, never failing
/// the other partitions' reads (``DamageReportingStore``).
public final class SecretServiceStore: ItemStore {
    /// Settings for opening a store.
    public struct Options: Sendable {
        /// The collection: an alias (`default`, `session`, `login`), a label or an object name.
        public var collection: String
        /// Separates stores that share a collection (the `store` attribute of every keyring item).
        public var namespace: String
        /// What to do when the collection is locked.
        public var unlock: UnlockPolicy
        /// The largest `data` an item may have.
        public var maximumDataSize: Int
        /// The label of a partition's keyring item, from its access group and account attribute.
        /// Shown by keyring managers; must not contain a secret.
        public var label: @Sendable (_ accessGroup: String, _ account: String) -> String

        public init(
            collection: String = "default",
            namespace: String = "default",
            unlock: UnlockPolicy = .fail,
            maximumDataSize: Int = StoreLimits.maximumDataSize,
            label: @escaping @Sendable (_ accessGroup: String, _ account: String) -> String = SecretServiceStore.defaultLabel
        ) {
            self.collection = collection
            self.namespace = namespace
            self.unlock = unlock
            self.maximumDataSize = maximumDataSize
            self.label = label
        }
    }

    /// `tokencache: ACCOUNT in GROUP`.
    public static let defaultLabel: @Sendable (String, String) -> String = { group, account in
        "tokencache: \(account.isEmpty ? "(no account)" : displayable(account)) in \(displayable(group))"
    }

    static let schemaName = "org.tokencache.Store"
    static let schemaVersion = "1"

    public let accessGroups: AccessGroups
    public let options: Options

    struct Partition {
        /// The keyring item, once written or loaded.
        var path: String?
        var entries: [PartitionEntry]
        /// Other keyring items of the partition, read into `entries` (copies two first writers left
        /// before they settled); the next write of the partition deletes them.
        var copies: [String] = []
    }

    struct State {
        var loaded = false
        var revision: UInt64 = 0
        var revisionPath: String?
        var partitions: [PartitionKey: Partition] = [:]
        /// Every entry, in insertion order; rebuilt after each load or commit.
        var ordered: [PartitionEntry] = []
        var maxOrder: UInt64 = 0
        /// Partition items the last load could not decode, by path: skipped, counted, never returned.
        var damaged: [(path: String, item: DamagedItem)] = []
    }

    let connection: SecretServiceConnection
    /// Keys the partition revisions' digests, so that they say nothing about the content outside this store.
    private let revisionKey = SymmetricKey(size: .bits256)
    let state = StateLock(State())
    /// Tests inject failures here: called before each partition write with its index in the batch.
    let faultInjection = StateLock<(@Sendable (Int) throws -> Void)?>(nil)

    /// Connects to the Secret Service and opens the collection (nothing is read until the first query).
    ///
    /// - Throws: ``SecretServiceError`` when there is no session bus, no Secret Service, no such
    ///   collection, or it is locked (and ``Options/unlock`` is `.fail`, or the prompt was dismissed).
    public init(accessGroups: AccessGroups, options: Options = Options()) throws(SecretServiceError) {
        self.accessGroups = accessGroups
        self.options = options
        self.connection = try SecretServiceConnection(collection: options.collection, unlock: options.unlock)
    }

    /// The collection's label and D-Bus object path, for diagnostics.
    public var collectionDescription: String { "'\(connection.collectionLabel)' (\(connection.collectionPath))" }

    // MARK: - ItemStore

    public func items(matching query: ItemQuery) throws -> [StoreItem] {
        try accessGroups.check(query)
        return try state.withLock { state throws(SecretServiceError) in
            try revalidate(&state)
            if let group = query.accessGroup, let account = query.account {
                let entries = state.partitions[PartitionKey(group: group, account: account)]?.entries ?? []
                return entries.sorted { $0.order < $1.order }.map(\.item).filter(query.matches)
            }
            return state.ordered.lazy.map(\.item).filter(query.matches)
        }
    }

    public func apply(_ batch: [StoreOperation]) throws -> BatchResult {
        try accessGroups.check(batch)
        for case .save(let item) in batch { try StoreLimits.check(item, maximumDataSize: options.maximumDataSize) }
        guard !batch.isEmpty else { return BatchResult() }
        return try state.withLock { state throws(SecretServiceError) in
            try revalidate(&state)
            let base = state.revision
            var working = state.partitions
            var dirty: [PartitionKey] = []
            var result = BatchResult()
            let now = Date()
            var nextOrder = max(state.maxOrder &+ 1, UInt64(now.timeIntervalSince1970 * 1e9))
            func touch(_ key: PartitionKey) { if !dirty.contains(key) { dirty.append(key) } }
            for operation in batch {
                switch operation {
                case .save(var item):
                    let key = PartitionKey(item)
                    var partition = working[key] ?? Partition(path: nil, entries: [])
                    item.modified = now
                    if let index = partition.entries.firstIndex(where: { $0.item.identity == item.identity }) {
                        item.created = partition.entries[index].item.created
                        partition.entries[index].item = item
                        result.replaced += 1
                    } else {
                        item.created = now
                        partition.entries.append(PartitionEntry(item: item, order: nextOrder))
                        nextOrder &+= 1
                        result.added += 1
                    }
                    working[key] = partition
                    touch(key)
                case .delete(let query):
                    let keys = query.accessGroup != nil && query.account != nil
                        ? [PartitionKey(group: query.accessGroup!, account: query.account!)]
                        : Array(working.keys)
                    for key in keys {
                        guard var partition = working[key] else { continue }
                        let before = partition.entries.count
                        partition.entries.removeAll { query.matches($0.item) }
                        guard partition.entries.count != before else { continue }
                        result.deleted += before - partition.entries.count
                        working[key] = partition
                        touch(key)
                    }
                case .setLookupKeys, .declareLookupKeysComplete:
                    break  // no lookup-key index (see docs/architecture.md): partitions(withLookupKey:) answers nil
                }
            }
            guard !dirty.isEmpty else {
                result.commit = CommitStamps(base: ChangeStamp(base), result: ChangeStamp(base))
                return result
            }
            let revision = try write(dirty, working: &working, previous: state.partitions, state: &state)
            for key in dirty where working[key]?.entries.isEmpty == true { working[key] = nil }
            state.partitions = working
            state.revision = revision
            Self.rebuild(&state)
            result.commit = CommitStamps(base: ChangeStamp(base), result: ChangeStamp(revision))
            return result
        }
    }

    public func changeStamp() throws -> ChangeStamp {
        try state.withLock { state throws(SecretServiceError) in
            ChangeStamp(try readRevision(&state).value)
        }
    }

    /// The partition's items, with a keyed digest of its stored form as its revision: it changes
    /// with the partition's content and not with other partitions'. Served from the loaded copy.
    public func readPartition(accessGroup: String, account: String) throws -> PartitionRead {
        try accessGroups.check(accessGroup)
        let key = PartitionKey(group: accessGroup, account: account)
        return try state.withLock { state throws(SecretServiceError) in
            try revalidate(&state)
            let entries = state.partitions[key]?.entries ?? []
            return PartitionRead(
                items: entries.sorted { $0.order < $1.order }.map(\.item),
                revision: PartitionCodec.revision(key, entries, key: revisionKey))
        }
    }

    /// Forgets what was loaded, so the next call reads the keyring again.
    public func invalidate() {
        state.withLock { $0.loaded = false }
    }

    /// How many partitions (keyring items) the open access groups have.
    public func partitionCount() throws -> Int {
        try state.withLock { state throws(SecretServiceError) in
            try revalidate(&state)
            return state.partitions.count
        }
    }

    // MARK: - Loading

    func revalidate(_ state: inout State) throws(SecretServiceError) {
        let current = try readRevision(&state)
        if state.loaded && current.value == state.revision && !current.pending { return }
        try load(&state)
    }

    /// Loads every partition of the open groups; retries while a writer is mid-batch.
    private func load(_ state: inout State) throws(SecretServiceError) {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let before = try readRevision(&state)
            if before.pending && Date() < deadline && Date().timeIntervalSince1970 - before.since < 5 {
                pauseThread(for: .milliseconds(20))
                continue
            }
            var paths: [(group: String, path: String)] = []
            for group in accessGroups.all {
                paths += try connection.search(attributes(kind: "partition") + [("access-group", Self.displayable(group))]).map { (group, $0) }
            }
            let secrets = try connection.secrets(paths.map(\.path))
            var partitions: [PartitionKey: Partition] = [:]
            var damaged: [(path: String, item: DamagedItem)] = []
            for (group, path) in paths {
                guard let secret = secrets[path] else { continue }  // deleted between search and load
                guard let decoded = try? PartitionCodec.decode(secret) else {
                    // One undecodable keyring item must not fail every read: skipped and counted.
                    damaged.append((path, Self.damagedPartition(group: group, path: path)))
                    continue
                }
                let (key, entries) = decoded
                guard accessGroups.contains(key.groupString) else { continue }  // a look-alike group name
                // Two items of one partition (created at once by two processes before they settled):
                // read as one, so every process sees the same content whichever item it met first.
                if let existing = partitions[key], let known = existing.path {
                    partitions[key] = Partition(
                        path: min(path, known), entries: PartitionSettlement.merge(existing.entries, entries),
                        copies: existing.copies + [max(path, known)])
                } else {
                    partitions[key] = Partition(path: path, entries: entries)
                }
            }
            let after = try readRevision(&state)
            if after.value != before.value || after.pending != before.pending, Date() < deadline { continue }
            state.partitions = partitions
            state.damaged = damaged
            state.revision = after.value
            state.loaded = true
            Self.rebuild(&state)
            return
        }
    }

    private static func rebuild(_ state: inout State) {
        state.ordered = state.partitions.values.flatMap(\.entries).sorted {
            $0.order != $1.order ? $0.order < $1.order : $0.item.service.utf8.lexicographicallyPrecedes($1.item.service.utf8)
        }
        state.maxOrder = max(state.maxOrder, state.ordered.last?.order ?? 0)
    }

    // MARK: - Writing

    /// Writes the dirty partitions, then a new revision; on failure restores what it wrote.
    private func write(
        _ dirty: [PartitionKey], working: inout [PartitionKey: Partition], previous: [PartitionKey: Partition],
        state: inout State
    ) throws(SecretServiceError) -> UInt64 {
        var newRevision = UInt64.random(in: 1...UInt64.max)
        while newRevision == state.revision { newRevision = UInt64.random(in: 1...UInt64.max) }
        var written: [PartitionKey] = []
        /// New partitions settled into an item that also holds another process's items: a failure
        /// later in the batch cannot delete them (that would lose the other writes).
        var shared: Set<PartitionKey> = []
        do throws(SecretServiceError) {
            if dirty.count > 1 {
                try writeRevision("pending \(String(state.revision, radix: 16)) \(Date().timeIntervalSince1970)", &state)
            }
            for (index, key) in dirty.enumerated() {
                if let inject = faultInjection.withLock({ $0 }) {
                    do { try inject(index) } catch {
                        throw SecretServiceError.operationFailed(operation: "store item", message: "\(error)", remoteName: nil)
                    }
                }
                let partition = working[key]!
                let copies = previous[key]?.copies ?? []
                if partition.entries.isEmpty {
                    if let path = partition.path ?? previous[key]?.path { try connection.delete(path) }
                    for copy in copies { try? connection.delete(copy) }
                } else if partition.path == nil, previous[key] == nil {
                    // A new partition: another process may be creating its item at this moment too, so
                    // it is created beside any other (never replacing one) and then settled.
                    let created = try store(key, partition.entries, replace: false)
                    let settled = try settleNewPartition(key, entries: partition.entries, path: created)
                    working[key] = Partition(path: settled.path, entries: settled.entries)
                    if settled.entries.count != partition.entries.count { shared.insert(key) }
                } else {
                    let path = try store(key, partition.entries)
                    // The copies were read into this content: one item is left.
                    for copy in copies + [previous[key]?.path].compactMap({ $0 }) where copy != path { try? connection.delete(copy) }
                    working[key]!.path = path
                    working[key]!.copies = []
                }
                written.append(key)
            }
            try writeRevision(String(newRevision, radix: 16), &state)
            return newRevision
        } catch {
            var unrestored: [String] = []
            for key in written.reversed() {
                do {
                    if let old = previous[key] {
                        try store(key, old.entries)
                    } else if shared.contains(key) {
                        unrestored.append(Self.defaultLabel(key.groupString, key.accountString))
                    } else if let path = working[key]?.path {
                        try connection.delete(path)
                    }
                } catch {
                    unrestored.append(Self.defaultLabel(key.groupString, key.accountString))
                }
            }
            // Other processes may have loaded the partial state: move the revision on either way.
            try? writeRevision(String(newRevision, radix: 16), &state)
            state.loaded = false
            if !unrestored.isEmpty {
                throw .batchPartiallyApplied(message: error.description, unrestored: unrestored)
            }
            throw error
        }
    }

    /// Writes the partition's item: replacing the item with its attributes, or with `replace` false
    /// as a new item beside any that exists (the first write of a partition, see ``PartitionSettlement``).
    @discardableResult
    func store(_ key: PartitionKey, _ entries: [PartitionEntry], replace: Bool = true) throws(SecretServiceError) -> String {
        var secret = PartitionCodec.encode(key, entries)
        defer { secret.resetBytes(in: 0..<secret.count) }
        return try connection.store(
            label: options.label(key.groupString, key.accountString),
            attributes: attributes(kind: "partition") + [
                ("access-group", Self.displayable(key.groupString)),
                ("account", Self.displayable(key.accountString)),
                ("partition", key.digest),
                ("schema-version", Self.schemaVersion),
            ],
            secret: secret, contentType: "application/octet-stream", replace: replace)
    }

    func attributes(kind: String) -> [(String, String)] {
        [("xdg:schema", Self.schemaName), ("kind", kind), ("store", options.namespace)]
    }

    /// A D-Bus-safe (NUL-free) form of an attribute value; lossy only for strings holding NUL.
    static func displayable(_ text: String) -> String {
        text.contains("\u{0}") ? text.replacingEvery("\u{0}", with: "\u{FFFD}") : text
    }
}
