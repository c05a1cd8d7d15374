import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheDisplay
import TokenCacheInterchange
import TokenCacheJSON

/// How `dump` shows items: each one's attributes and decoded payload, secrets redacted unless asked.
enum ItemListing {
    static func print(_ items: [StoreItem], json: Bool, revealSecrets: Bool) {
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
            text += "  generic: \(describe(item.generic))\n"
            text += "  type:    \(item.type.map(String.init) ?? "(none)")\n"
            let view = PayloadView.object(for: item, revealSecrets: revealSecrets)
            if let payload = view["payload"] {
                let pretty = PayloadView.prettyPrinted(payload).dropLast().split(separator: "\n", omittingEmptySubsequences: false)
                    .joined(separator: "\n    ")
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
        if let text = String(validating: generic, as: UTF8.self) { return DisplayText.escaped(text) }
        return "base64:" + generic.base64EncodedString()
    }
}
