import ArgumentParser
import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct Repair: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove damaged items: forged, altered or unauthenticated rows that reads skip.",
        discussion: """
            A damaged item is a plain payload in an access group whose payloads are sealed, or a sealed \
            payload that fails authentication. Reads never return them, so the rest of the store keeps \
            working; `doctor` lists them (by identity, never by content). This command removes all of \
            them in one transaction and prints how many. The auth library signs the affected accounts \
            in again on their next request.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "List the damaged items without removing them.")
    var dryRun = false

    func run() throws {
        // A backend that cannot hold damaged items has none to list or remove.
        let store = try storeOptions.open() as? any DamageReportingStore
        if dryRun {
            let damaged = try exitOnFailure { try store?.damagedItems() ?? [] }
            var text = "\(damaged.count) damaged item\(damaged.count == 1 ? "" : "s")\(damaged.isEmpty ? "." : ":")\n"
            for item in damaged { text += "  \(item)\n" }
            printOutput(Data(text.utf8))
            return
        }
        let removed = try exitOnFailure { try store?.removeDamagedItems() ?? 0 }
        printOutput(Data("Removed \(removed) damaged item\(removed == 1 ? "" : "s").\n".utf8))
    }
}
