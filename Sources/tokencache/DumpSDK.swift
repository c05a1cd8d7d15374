import ArgumentParser
import InterchangeSecretService
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheInterchange

struct DumpSDK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk",
        abstract: "Print the items of the token cache another tool keeps on this machine, without importing it.",
        discussion: """
            Reads the caches `import sdk --from SOURCE` reads (secret-service:LAYOUT, file:LAYOUT or \
            auto; `import sdk --list-sources` shows where they are) and prints their items as `dump` \
            does, secrets redacted unless --reveal-secrets is given. Nothing is written, no store is \
            opened, and the keyring is only read: a locked collection exits 74. Exit status: 1 when no \
            cache is found.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("The caches to read: secret-service:LAYOUT, file:LAYOUT or auto.", valueName: "source"))
    var from: SDKCacheSelection

    @Flag(help: "Print the items as a JSON array, each with its decoded payload.")
    var json = false

    @Flag(help: "Show secrets in payloads. Handle the output as a secret.")
    var revealSecrets = false

    func run() throws {
        let group = try storeOptions.writeGroup()
        var notes: [String] = []
        let keyring = try ImportSDK.keyring(for: from, notes: &notes)
        for note in notes { printError("note: the Secret Service was not searched: \(note)") }
        let survey: SDKCacheSurvey
        do {
            survey = try SDKCacheFinder.survey(from, keyring: keyring, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ImportSDK.fail("\(from)", error)
        }
        guard !survey.found.isEmpty else {
            printError(ImportSDK.notFound(from, survey))
            throw ExitCode(Status.notFound)
        }
        let content: SDKCacheContent
        do {
            content = try SDKCacheContent.read(survey.found, keyring: keyring, accessGroup: group)
        } catch {
            throw ImportSDK.fail("\(from)", error)
        }
        ItemListing.print(content.items, json: json, revealSecrets: revealSecrets)
        var summary = ""
        for (location, entries) in content.sources {
            summary += ImportSDK.foundLine(location, entries: entries)
        }
        summary += issueLines("skipped", content.skipped)
        summary += issueLines("adjusted", content.adjusted)
        printError(summary + "nothing was imported")
    }
}
