import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import InterchangeSecretService
import TokenCacheInterchange

extension SDKCacheSelection: ExpressibleByArgument {}

struct ImportSDK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk",
        abstract: "Import the token cache another tool keeps on this machine, in one atomic batch.",
        discussion: """
            --from secret-service:LAYOUT reads its keyring item, file:LAYOUT its plaintext file, auto \
            every place of every layout. Layouts: msal-dotnet (Azure.Identity .NET, MSAL.NET's \
            extension), gcm (Git Credential Manager), azure-identity-python, azure-cli (keyring, or \
            $AZURE_CONFIG_DIR/msal_token_cache.json, default ~/.azure), msal-node (keytar, Azure \
            Identity JS). The keyring is only read: nothing is created, changed or unlocked, and a \
            locked collection exits 74. --list-sources shows what each place holds without reading \
            a secret and exits 0 whatever it finds. Exit status of --from: 1 when no cache is found.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(
        help: ArgumentHelp("The caches to read: secret-service:LAYOUT, file:LAYOUT or auto.", valueName: "source"))
    var from: SDKCacheSelection?

    @Flag(
        name: .customLong("list-sources"),
        help: "List the places --from reads (all, or those of --from) and what each holds; reads no secret, changes nothing.")
    var listSources = false

    func validate() throws {
        if from == nil && !listSources {
            throw ValidationError("give --from SOURCE (secret-service:LAYOUT, file:LAYOUT or auto), or --list-sources")
        }
    }

    func run() throws {
        let selection = from ?? .auto
        var notes: [String] = []
        let keyring = try Self.keyring(for: selection, notes: &notes)
        let survey: SDKCacheSurvey
        do {
            survey = try SDKCacheFinder.survey(selection, keyring: keyring, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw Self.fail("\(selection)", error)
        }
        if listSources { return try Self.list(survey, notes: notes) }
        try importCaches(selection, survey: survey, keyring: keyring, notes: notes)
    }

    /// Connects to the Secret Service when `selection` reads it. For `auto`, an unreachable one is
    /// left out with a note; for `secret-service:LAYOUT` it is the command's failure (74).
    static func keyring(for selection: SDKCacheSelection, notes: inout [String]) throws -> SecretServiceKeyring? {
        guard selection.usesKeyring else { return nil }
        do {
            return try SecretServiceKeyring()
        } catch {
            if selection == .auto {
                notes.append("\(error)")
                return nil
            }
            throw fail("\(selection)", error)
        }
    }

    func importCaches(_ selection: SDKCacheSelection, survey: SDKCacheSurvey, keyring: SecretServiceKeyring?, notes: [String]) throws {
        for note in notes { printError("note: the Secret Service was not searched: \(note)") }
        guard !survey.found.isEmpty else {
            printError(Self.notFound(selection, survey))
            throw ExitCode(Status.notFound)
        }
        let store = try storeOptions.open()
        let interchange = try exitOnFailure { try CacheInterchange(store: store) }
        let report = try exitOnFailure { try interchange.importSDKCaches(survey.found, keyring: keyring) }

        let count = report.sources.count
        var text = "Imported \(report.imported) item\(report.imported == 1 ? "" : "s") from \(count) SDK cache\(count == 1 ? "" : "s"): "
        text += "\(report.added) added, \(report.replaced) replaced"
        text += report.skipped.isEmpty ? ".\n" : "; \(report.skipped.count) entr\(report.skipped.count == 1 ? "y" : "ies") skipped.\n"
        for (location, entries) in report.sources {
            text += "  " + Self.foundLine(location, entries: entries)
        }
        if selection == .auto {
            let found = Set(report.sources.map(\.location.selection)).union(survey.foundAgain.map(\.selection))
            var missing: [SDKCacheSelection] = []
            for place in survey.missing where !found.contains(place.selection) && !missing.contains(place.selection) {
                missing.append(place.selection)
            }
            if !missing.isEmpty { text += "  not found: \(missing.map(\.description).joined(separator: ", "))\n" }
        }
        text += issueLines("skipped", report.skipped)
        text += issueLines("adjusted", report.adjusted)
        printOutput(Data(text.utf8))
        if report.entries == 0 {
            printError("the caches found are empty; nothing was imported")
            throw ExitCode(Status.notFound)
        }
    }

    static func list(_ survey: SDKCacheSurvey, notes: [String]) throws {
        var text = ""
        for note in notes { text += "secret-service: not searched: \(note)\n" }
        for location in survey.found {
            switch location.place {
            case .keyring(let item, let layout):
                text += "found    \(location) (\(layout.encoding)\(item.isLocked ? "; locked: unlock the collection to import it" : ""))\n"
            case .file(_, let size):
                text += "found    \(location) (MSAL JSON, \(size) bytes)\n"
            }
        }
        for location in survey.foundAgain { text += "same     \(location) (listed above under another layout)\n" }
        for place in survey.signalFiles { text += "empty    \(place) (a signal file beside a keyring cache)\n" }
        for place in survey.missing { text += "missing  \(place)\n" }
        printOutput(Data(text.utf8))
    }

    /// One cache read: where, and how many entries it held.
    static func foundLine(_ location: SDKCacheLocation, entries: Int) -> String {
        "found \(location): " + (entries == 0 ? "an empty cache\n" : "\(entries) entr\(entries == 1 ? "y" : "ies")\n")
    }

    /// The message for a survey that found no cache: where it looked.
    static func notFound(_ selection: SDKCacheSelection, _ survey: SDKCacheSurvey) -> String {
        var message = "no \(selection == .auto ? "SDK" : "\(selection)") token cache found; looked in:"
        for place in survey.missing { message += "\n  \(place)" }
        for place in survey.signalFiles { message += "\n  \(place) (empty: a signal file beside a keyring cache)" }
        return message
    }

    /// Prints `error` prefixed with `context` and returns the exit code that fits it.
    static func fail(_ context: String, _ error: any Error) -> ExitCode {
        printError("\(context): \(describe(error))")
        return ExitCode(status(for: error))
    }
}
