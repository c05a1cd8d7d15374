import ArgumentParser
import CacheStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheInterchange

struct DumpItems: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "items",
        abstract: "Print every item of the store's access groups, or of a cache file: attributes and decoded payload (`dump` and `dump FILE` for short).",
        discussion: """
            Secrets in payloads (the 'secret' member and other token members) are replaced by a marker \
            such as "<redacted: 812 chars>", and payloads that are not JSON by their size, unless \
            --reveal-secrets is given. --json prints an array of {access_group, account, service, \
            generic, type, created, modified, payload}; `export --format keychain-items` is the \
            lossless form for moving items between stores. With FILE, the file is read as `import` \
            reads it (any format `import` takes) and shown as the items it would import, each in the \
            first access group; nothing is written. A file that cannot be read in full exits 65 with \
            a message naming the file and the place.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "A cache file to show instead of the store; - reads standard input.")
    var file: String?

    @Option(help: ArgumentHelp("The file's format.", valueName: ImportFormatOption.allValueStrings.joined(separator: "|")))
    var format: ImportFormatOption = .auto

    @Flag(help: "Print the items as a JSON array, each with its decoded payload.")
    var json = false

    @Flag(help: "Show secrets in payloads. Handle the output as a secret.")
    var revealSecrets = false

    func validate() throws {
        if file == nil && format != .auto {
            throw ValidationError("--format applies to a FILE; the store's items need none")
        }
    }

    func run() throws {
        guard let file else {
            let store = try storeOptions.open()
            let items = try exitOnFailure { try store.allItems() }
            return ItemListing.print(items, json: json, revealSecrets: revealSecrets)
        }
        let group = try storeOptions.writeGroup()
        let source = file == "-" ? "stdin" : file
        let decoded = try exitOnFailure {
            let data = try readCacheFile(file, source: source)
            let chosen: ImportFormat? = if case .format(let format) = format { format } else { nil }
            return try ImportDecoder.decode(data, source: source, format: chosen, accessGroup: group)
        }
        ItemListing.print(decoded.items, json: json, revealSecrets: revealSecrets)
        if !json {
            printError("\(source): \(decoded.format), \(decoded.entries) entr\(decoded.entries == 1 ? "y" : "ies") read; nothing was imported")
        }
        var notes = issueLines("skipped", decoded.skipped)
        notes += issueLines("adjusted", decoded.adjusted)
        if !notes.isEmpty { printError(String(notes.dropLast())) }
    }
}
