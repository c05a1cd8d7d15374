import ArgumentParser
import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct Repair: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove damaged items, and prune what removed or expired partitions left behind.",
        discussion: """
            A damaged item is a plain payload in an access group whose payloads are sealed, a sealed \
            payload that fails authentication, or a record the store cannot decode (a Redis key of \
            another type, a keyring item that is not a tokencache partition). Reads never return them, \
            so the rest of the store keeps working; `doctor` lists them (by identity and location, never \
            by content). This command removes all of them and prints how many; the auth library signs the \
            affected accounts in again on their next request. It then prunes the records of partitions \
            that hold no items any more: SQLite's partition revisions and lookup keys, a standalone Redis \
            server's group-index members and lookup keys of expired partitions.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "List the damaged items without removing them (and prune nothing).")
    var dryRun = false

    func run() throws {
        let opened = try storeOptions.open()
        // A backend that cannot hold damaged items has none to list or remove.
        let store = opened as? any DamageReportingStore
        if dryRun {
            let damaged = try exitOnFailure { try store?.damagedItems() ?? [] }
            var text = "\(damaged.count) damaged item\(damaged.count == 1 ? "" : "s")\(damaged.isEmpty ? "." : ":")\n"
            for item in damaged { text += "  \(item)\n" }
            printOutput(Data(text.utf8))
            return
        }
        let removed = try exitOnFailure { try store?.removeDamagedItems() ?? 0 }
        var text = "Removed \(removed) damaged item\(removed == 1 ? "" : "s").\n"
        if let pruning = opened as? any PartitionPruningStore {
            let pruned = try exitOnFailure { try pruning.pruneRemovedPartitions() }
            text += "Pruned \(pruned.partitions) record\(pruned.partitions == 1 ? "" : "s") of removed partitions and "
                + "\(pruned.lookupKeys) lookup key\(pruned.lookupKeys == 1 ? "" : "s").\n"
        }
        printOutput(Data(text.utf8))
    }
}
