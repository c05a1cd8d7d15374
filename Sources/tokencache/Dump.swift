import ArgumentParser
import CacheStore
import Foundation

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every item of the store's access groups.",
        discussion: "Payloads are hidden (only their size is shown) unless --reveal-secrets is given.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print the items as a JSON array (the keychain-items format).")
    var json = false

    @Flag(help: "Include each item's payload, which contains tokens. Handle the output as a secret.")
    var revealSecrets = false

    func run() throws {
        let store = try storeOptions.open()
        let items = try exitOnFailure { try store.allItems() }
        if json {
            let options = KeychainItemsFormat.EncodeOptions(includeData: revealSecrets, includeDates: true)
            printOutput(KeychainItemsFormat.encode(items, options: options))
            return
        }
        var text = ""
        for item in items {
            text += "- group:   \(item.accessGroup)\n"
            text += "  account: \(item.account)\n"
            text += "  service: \(item.service)\n"
            text += "  generic: \(Self.describe(item.generic))\n"
            text += "  type:    \(item.type.map(String.init) ?? "(none)")\n"
            if revealSecrets {
                text += "  data:    \(String(data: item.data, encoding: .utf8) ?? item.data.base64EncodedString())\n"
            } else {
                text += "  data:    \(item.data.count) bytes (hidden; --reveal-secrets shows them)\n"
            }
        }
        text += "\(items.count) item\(items.count == 1 ? "" : "s")\n"
        printOutput(Data(text.utf8))
    }

    private static func describe(_ generic: Data?) -> String {
        guard let generic else { return "(none)" }
        if generic.isEmpty { return "(empty)" }
        if let text = String(data: generic, encoding: .utf8) { return text }
        return "base64:" + generic.base64EncodedString()
    }
}
