import ArgumentParser
@_spi(Text) import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheInterchange
import TokenCacheSchema

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every item of the store's access groups: attributes and decoded payload.",
        discussion: """
            Secrets in payloads (the 'secret' member and other token members) are replaced by a marker \
            such as "<redacted: 812 chars>", and payloads that are not JSON by their size, unless \
            --reveal-secrets is given. --json prints an array of {access_group, account, service, \
            generic, type, created, modified, payload}; `export --format keychain-items` is the \
            lossless form for moving items between stores.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print the items as a JSON array, each with its decoded payload.")
    var json = false

    @Flag(help: "Show secrets in payloads. Handle the output as a secret.")
    var revealSecrets = false

    func run() throws {
        let store = try storeOptions.open()
        let items = try exitOnFailure { try store.allItems() }
        if json {
            let objects = items.map { JSONValue.object(PayloadView.object(for: $0, revealSecrets: revealSecrets)) }
            printJSONText(PayloadView.prettyPrinted(.array(objects)))
            return
        }
        var text = ""
        for item in items {
            text += "- group:   \(DisplayText.escaped(item.accessGroup))\n"
            text += "  account: \(DisplayText.escaped(item.account))\n"
            text += "  service: \(DisplayText.escaped(item.service))\n"
            text += "  generic: \(Self.describe(item.generic))\n"
            text += "  type:    \(item.type.map(String.init) ?? "(none)")\n"
            let view = PayloadView.object(for: item, revealSecrets: revealSecrets)
            if let payload = view["payload"] {
                let pretty = PayloadView.prettyPrinted(payload).dropLast().replacingEvery("\n", with: "\n    ")
                text += "  payload: \(pretty)\n"
            } else if revealSecrets {
                text += "  data:    \(item.data.base64EncodedString()) (\(item.data.count) bytes, not JSON; Base64)\n"
            } else {
                text += "  data:    \(item.data.count) bytes, not JSON (hidden; --reveal-secrets shows them)\n"
            }
        }
        text += "\(items.count) item\(items.count == 1 ? "" : "s")\n"
        printOutput(Data(text.utf8))
    }

    private static func describe(_ generic: Data?) -> String {
        guard let generic else { return "(none)" }
        if generic.isEmpty { return "(empty)" }
        if let text = String(data: generic, encoding: .utf8) { return DisplayText.escaped(text) }
        return "base64:" + generic.base64EncodedString()
    }
}
