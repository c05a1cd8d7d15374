import CacheStore
import CacheStoreMemory
import Foundation
import Synchronization
import TokenCache
import TokenCacheJSON
import TokenCacheSchema
import Testing

/// A memory store that notes the partitions each committed batch writes (saves and deletes).
final class WriteRecordingStore: MemoryBackedStore {
    let base: MemoryStore
    private let batches = Mutex<[[PartitionID]]>([])

    init(_ base: MemoryStore) { self.base = base }

    /// The partitions of every batch committed since the last call, in commit order.
    func takeWrittenPartitions() -> [[PartitionID]] {
        batches.withLock { batches in
            defer { batches = [] }
            return batches
        }
    }

    private func note(_ batch: [StoreOperation]) {
        var partitions: [PartitionID] = []
        for operation in batch {
            let partition: PartitionID?
            switch operation {
            case .save(let item): partition = item.partition
            case .delete(let query): partition = query.identity.map { PartitionID(accessGroup: $0.accessGroup, account: $0.account) }
            default: partition = nil
            }
            if let partition, !partitions.contains(partition) { partitions.append(partition) }
        }
        if !partitions.isEmpty { batches.withLock { $0.append(partitions) } }
    }

    func apply(_ batch: [StoreOperation]) throws -> BatchResult {
        let result = try base.apply(batch)
        note(batch)
        return result
    }

    func applyPlanned(_ plan: (ChangeStamp, () throws -> [StoreItem]) throws -> [StoreOperation]) throws -> BatchResult {
        let committed = Mutex<[StoreOperation]>([])
        let result = try base.applyPlanned { stamp, allItems in
            let batch = try withoutActuallyEscaping(allItems) { try plan(stamp, $0) }
            committed.withLock { $0 = batch }
            return batch
        }
        note(committed.withLock { $0 })
        return result
    }
}

/// Each account's sign-in state lives in its own partition (type 9001), so that signing a user in
/// or out writes no item every user of the app shares; MSAL ObjC's per-app item (type 5001) is read
/// and filed per account.
@Suite struct AccountSignInTests {
    static let partitionOfHome = PartitionID(accessGroup: IDs.group, account: "\(IDs.home)-login.windows.net")
    static let partitionOfHome2 = PartitionID(accessGroup: IDs.group, account: "\(IDs.home2)-login.windows.net")

    static func recordingFixture() throws -> (WriteRecordingStore, CacheFixture) {
        let store = WriteRecordingStore(MemoryStore(accessGroups: try AccessGroups([IDs.group])))
        return (store, try CacheFixture(store: store))
    }

    static func signIn(_ fixture: CacheFixture, home: String, client: String) throws -> AccountSignIn? {
        let items = try fixture.store.items(matching: ItemQuery(service: client, type: .code(ItemTypeCode.accountSignIn)))
        return try items.map { try AccountSignIn(storeItem: $0) }.first { $0.entry.homeAccountId == home }
    }

    @Test func aFirstSignInWritesOnlyTheAccountsPartition() throws {
        let (store, fixture) = try Self.recordingFixture()
        try fixture.save()
        _ = store.takeWrittenPartitions()

        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"))
        #expect(store.takeWrittenPartitions() == [[Self.partitionOfHome2]])
        #expect(try Self.signIn(fixture, home: IDs.home2, client: IDs.appA)?.entry.signInState == .signedIn)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).count == 2)

        // Signed in already: the next save writes no sign-in state at all.
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"))
        let again = try #require(store.takeWrittenPartitions().first)
        #expect(again == [Self.partitionOfHome2])
        #expect(try fixture.store.items(matching: ItemQuery(type: .code(ItemTypeCode.accountSignIn))).count == 2)
    }

    @Test func signingOutWritesOnlyTheAccountsPartitionAndHidesItFromThatAppOnly() throws {
        let (store, fixture) = try Self.recordingFixture()
        try fixture.save(clientId: IDs.appA)
        try fixture.save(clientId: IDs.appB)
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"), clientId: IDs.appA)
        _ = store.takeWrittenPartitions()

        let result = try fixture.cache.removeAccount(homeAccountId: IDs.home, clientId: IDs.appA)
        #expect(result.markedSignedOut)
        // The account's partition, and the wipe record MSAL writes when refresh tokens go.
        #expect(store.takeWrittenPartitions() == [[Self.partitionOfHome, PartitionID(accessGroup: IDs.group, account: "TokenWipe")]])
        #expect(try Self.signIn(fixture, home: IDs.home, client: IDs.appA)?.entry.signInState == .signedOut)
        #expect(try Self.signIn(fixture, home: IDs.home, client: IDs.appB)?.entry.signInState == .signedIn)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).map(\.homeAccountId) == [IDs.home2])
        #expect(try fixture.cache.accounts(clientId: IDs.appB).map(\.homeAccountId) == [IDs.home])
        #expect(try fixture.cache.account(identifier: IDs.home, clientId: IDs.appA) == nil)

        try fixture.save(clientId: IDs.appA)
        #expect(try Self.signIn(fixture, home: IDs.home, client: IDs.appA)?.entry.signInState == .signedIn)
        #expect(Set(try fixture.cache.accounts(clientId: IDs.appA).map(\.homeAccountId)) == [IDs.home, IDs.home2])
    }

    @Test func anAccountsOwnStateOverridesTheAppsItem() throws {
        let fixture = try CacheFixture()
        try fixture.save(clientId: IDs.appA)
        var legacy = AccountMetadata(clientId: IDs.appA)
        legacy.setSignInState(.signedOut, homeAccountId: IDs.home)
        try fixture.put(legacy)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).count == 1, "the account's own item says signed in")

        try fixture.cache.removeAccount(homeAccountId: IDs.home, clientId: IDs.appA)
        try fixture.save(clientId: IDs.appA)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).count == 1)
    }

    /// A store written before accounts had their own items: the first whole read files the app's
    /// entries per account, leaving what it cannot file (an account the store has no record of, the
    /// principal fields), and the answers do not change.
    @Test func theAppsItemIsFiledPerAccountOnOpen() throws {
        let base = MemoryStore(accessGroups: try AccessGroups([IDs.group]))
        let writer = try CacheFixture(store: base)
        try writer.save(clientId: IDs.appA)
        try writer.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"), clientId: IDs.appA)
        try base.apply([.delete(ItemQuery(type: .code(ItemTypeCode.accountSignIn)))])
        var legacy = AccountMetadata(clientId: IDs.appA, principalHomeAccountId: IDs.home2)
        legacy.setSignInState(.signedOut, homeAccountId: IDs.home)
        legacy.setSignInState(.signedIn, homeAccountId: IDs.home2)
        legacy.setSignInState(.signedOut, homeAccountId: "unknown.tenant")
        try writer.put(legacy)

        let store = WriteRecordingStore(base)
        let fixture = try CacheFixture(store: store)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).map(\.homeAccountId) == [IDs.home2])
        // One batch: the accounts' items (by home account id), then the app's item.
        #expect(store.takeWrittenPartitions() == [[
            Self.partitionOfHome2, Self.partitionOfHome, PartitionID(accessGroup: IDs.group, account: AccountMetadata.keyAccount),
        ]])
        #expect(try Self.signIn(fixture, home: IDs.home, client: IDs.appA)?.entry.signInState == .signedOut)
        #expect(try Self.signIn(fixture, home: IDs.home2, client: IDs.appA)?.entry.signInState == .signedIn)
        let left = try AccountMetadata(storeItem: try fixture.item(account: "authority_map", service: IDs.appA, type: 5001))
        #expect(left.principalHomeAccountId == IDs.home2)
        #expect(Array(left.accounts.keys) == ["unknown.tenant"])

        // Filed once: a new engine reads the same and writes nothing.
        let reopened = try CacheFixture(store: store)
        #expect(try reopened.cache.accounts(clientId: IDs.appA).map(\.homeAccountId) == [IDs.home2])
        #expect(store.takeWrittenPartitions().isEmpty)
    }

    @Test func anAppsItemWithOnlyFiledEntriesIsDeleted() throws {
        let base = MemoryStore(accessGroups: try AccessGroups([IDs.group]))
        let writer = try CacheFixture(store: base)
        try writer.save(clientId: IDs.appA)
        try base.apply([.delete(ItemQuery(type: .code(ItemTypeCode.accountSignIn)))])
        var legacy = AccountMetadata(clientId: IDs.appA)
        legacy.setSignInState(.signedOut, homeAccountId: IDs.home)
        try writer.put(legacy)

        let fixture = try CacheFixture(store: base)
        #expect(try fixture.cache.accounts(clientId: IDs.appA).isEmpty)
        #expect(try fixture.items(type: 5001).isEmpty)
        #expect(try Self.signIn(fixture, home: IDs.home, client: IDs.appA)?.entry.signInState == .signedOut)
    }

    @Test func theFoldedViewIsMSALObjCsItem() throws {
        let fixture = try CacheFixture()
        try fixture.save(clientId: IDs.appA)
        try fixture.save(TokenResponses.aad(uid: IDs.uid2, username: "second@contoso.com"), clientId: IDs.appA)
        try fixture.cache.removeAccount(homeAccountId: IDs.home2, clientId: IDs.appA)
        let folded = AccountMetadataFiling.merged(try fixture.allItems())
        let item = try #require(folded.count == 1 ? folded.first : nil)
        #expect(item.account == "authority_map")
        #expect(item.service == IDs.appA)
        #expect(item.type == 5001)
        let metadata = try AccountMetadata(storeItem: item)
        #expect(metadata.accounts[IDs.home]?.signInState == .signedIn)
        #expect(metadata.accounts[IDs.home2]?.signInState == .signedOut)
        #expect(metadata.accounts[IDs.home2]?.clientId == IDs.appA)
    }

    @Test func anItemStoredUnderAnotherAccountIsUnreadable() throws {
        let fixture = try CacheFixture()
        try fixture.save(clientId: IDs.appA)
        let entry = AccountMetadata.Entry(clientId: IDs.appB, homeAccountId: IDs.home, signInState: .signedOut)
        var item = try AccountSignIn(entry: entry, environment: "login.windows.net").storeItem(accessGroup: IDs.group)
        item.account = "\(IDs.home2)-login.windows.net"
        try fixture.put(item)
        let unreadable = try fixture.cache.unreadableItems()
        #expect(unreadable.count == 1)
        #expect(unreadable.first?.item?.account == item.account)
        // Not read, so it hides nothing: B's state is unknown, and B has no token of the account.
        #expect(try fixture.cache.accounts(clientId: IDs.appA).count == 1)
    }

    /// In partition mode the state comes with the account's partition: a sign-out through one
    /// partition engine hides the account from another, though another app's family token remains.
    @Test func partitionEnginesAnswerFromTheAccountsPartition() throws {
        let store = try PartitionedMemoryStore(groups: [PartitionModeTests.group])
        let writer = try PartitionModeTests.engine(store, limit: 1_000)
        for user in 0..<3 { try PartitionModeTests.save(writer, user: user, step: user) }
        try PartitionModeTests.save(writer, user: 1, step: 3, client: "client-b")
        let reader = try PartitionModeTests.engine(store, limit: 1_000)
        #expect(try reader.account(identifier: "uid1.tid1", clientId: "client-a") != nil)

        try writer.removeAccount(homeAccountId: "uid1.tid1", clientId: "client-a")
        #expect(try reader.account(identifier: "uid1.tid1", clientId: "client-a") == nil)
        #expect(try reader.account(identifier: "uid1.tid1", clientId: "client-b") != nil)
        #expect(try reader.account(identifier: "uid2.tid0", clientId: "client-a") != nil)
        #expect(try store.items(matching: ItemQuery(type: .code(5001))).isEmpty)
        #expect(try store.items(matching: ItemQuery(type: .code(ItemTypeCode.accountSignIn))).count == 4)
    }
}
