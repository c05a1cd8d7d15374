import CacheStore
import CacheStoreMemory

/// A test store over a ``MemoryStore`` that changes one part of the contract: it forwards the rest
/// (queries, batches, stamps, whole reads) to `base`, and implements only what it changes.
protocol MemoryBackedStore: ItemStore {
    var base: MemoryStore { get }
}

extension MemoryBackedStore {
    var accessGroups: AccessGroups { base.accessGroups }

    func items(matching query: ItemQuery) throws -> [StoreItem] { try base.items(matching: query) }
    func apply(_ batch: [StoreOperation]) throws -> BatchResult { try base.apply(batch) }
    func apply(_ batch: [StoreOperation], ifUnchangedSince stamp: ChangeStamp) throws -> BatchResult? {
        try base.apply(batch, ifUnchangedSince: stamp)
    }
    func applyPlanned(_ plan: (ChangeStamp, () throws -> [StoreItem]) throws -> [StoreOperation]) throws -> BatchResult {
        try base.applyPlanned(plan)
    }
    func changeStamp() throws -> ChangeStamp { try base.changeStamp() }
    func readAllItems(chunkSize: Int, into receive: ([StoreItem]) -> Void) throws {
        try base.readAllItems(chunkSize: chunkSize, into: receive)
    }
}
