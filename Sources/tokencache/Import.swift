import ArgumentParser
import CacheStore
import CacheStoreSecretService
import Foundation
import TokenCacheInterchange

/// `--format` of `import`: a format, or `auto` to recognize it by content.
enum ImportFormatOption: ExpressibleByArgument, Equatable {
    case auto
    case format(ImportFormat)

    init?(argument: String) {
        if argument == "auto" {
            self = .auto
        } else if let format = ImportFormat(rawValue: argument) {
            self = .format(format)
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { ["auto"] + ImportFormat.allCases.map(\.rawValue) }

    var defaultValueDescription: String {
        switch self {
        case .auto: "auto"
        case .format(let format): format.rawValue
        }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a token cache file into the store, in one atomic batch.",
        discussion: """
            Formats: msal-json (the unified JSON cache of MSAL.NET, Python, Node, Java and Go), msal-v2 \
            (MSAL.NET 2.x), keychain-items (raw items, as `export --format keychain-items` writes \
            them), adal-v3 (the ADAL.NET v3 blob), adal-macos (ADAL for macOS's serialized cache); \
            ADAL tokens become legacy ADAL items, where MSAL finds ADAL users. auto recognizes the format by content. Entries are keyed by their fields, not by \
            the keys in the file. A file that cannot be read in full imports nothing and exits 65 \
            with a message naming the file and the place; the store is unchanged.

            --from imports the cache another tool keeps on this machine: secret-service:LAYOUT reads \
            its keyring item, file:LAYOUT its plaintext file, auto every place of every layout, in one \
            atomic batch. Layouts: msal-dotnet (Azure.Identity .NET, MSAL.NET's extension), gcm (Git \
            Credential Manager), azure-identity-python, azure-cli (keyring, or \
            $AZURE_CONFIG_DIR/msal_token_cache.json, default ~/.azure), msal-node (keytar, Azure \
            Identity JS). The keyring is only read: nothing is created, changed or unlocked, and a \
            locked collection exits 74. --list-sources shows what each place holds without reading \
            a secret. Exit status: 1 when no cache is found.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The file to import; - reads standard input.")
    var file: String?

    @Option(help: ArgumentHelp("The file's format.", valueName: ImportFormatOption.allValueStrings.joined(separator: "|")))
    var format: ImportFormatOption = .auto

    @Option(
        help: ArgumentHelp(
            "Import an SDK's own cache instead of a file: secret-service:LAYOUT, file:LAYOUT or auto.",
            valueName: "source"))
    var from: SDKCacheSelection?

    @Flag(
        name: .customLong("list-sources"),
        help: "List the places --from reads (all, or those of --from) and what each holds; reads no secret, changes nothing.")
    var listSources = false

    func validate() throws {
        if file != nil && (from != nil || listSources) {
            throw ValidationError("give either a FILE or --from/--list-sources, not both")
        }
        if file == nil && from == nil && !listSources {
            throw ValidationError("give a FILE to import, or --from SOURCE (secret-service:LAYOUT, file:LAYOUT or auto)")
        }
        if file == nil && format != .auto {
            throw ValidationError("--format applies to a FILE; each --from layout has its own format")
        }
    }

    func run() throws {
        if listSources { return try SDKSources.list(from ?? .auto) }
        if let from { return try SDKSources.importCaches(from, storeOptions: storeOptions) }
        guard let file else { throw ValidationError("give a FILE to import") }
        let store = try storeOptions.open()
        let interchange = try exitOnFailure { try CacheInterchange(store: store) }
        let source = file == "-" ? "stdin" : file
        let progress = ProgressLine(enabled: isatty(STDERR_FILENO) == 1)
        let report = try exitOnFailure {
            defer { progress.finish() }
            let data: Data
            if file == "-" {
                data = try BoundedInput.readAll(STDIN_FILENO, source: source)
            } else {
                guard let content = try PrivateFile.read(file, limit: ImportDecoder.sizeLimit) else {
                    throw InterchangeError.cannotRead(path: file, reason: "no such file")
                }
                data = content
            }
            let chosen: ImportFormat? = if case .format(let format) = format { format } else { nil }
            return try interchange.importData(
                data, source: source, format: chosen,
                progress: { done, total in progress.update("reading \(source): \(done)/\(total) entries", done: done, total: total) },
                beforeWrite: { count in progress.update("writing \(count) items", done: 1, total: 1, force: true) })
        }
        var text = "Imported \(report.imported) item\(report.imported == 1 ? "" : "s") from \(source) (\(report.format)): "
        text += "\(report.added) added, \(report.replaced) replaced"
        text += report.skipped.isEmpty ? ".\n" : "; \(report.skipped.count) entr\(report.skipped.count == 1 ? "y" : "ies") skipped.\n"
        text += Self.list("skipped", report.skipped)
        text += Self.list("adjusted", report.adjusted)
        printOutput(Data(text.utf8))
    }

    static func list(_ label: String, _ issues: [ImportIssue], limit: Int = 20) -> String {
        var text = ""
        for issue in issues.prefix(limit) { text += "  \(label): \(issue)\n" }
        if issues.count > limit { text += "  … and \(issues.count - limit) more \(label)\n" }
        return text
    }
}

/// A progress line on stderr, redrawn in place; only when stderr is a terminal and the work is long.
final class ProgressLine: @unchecked Sendable {
    private let enabled: Bool
    private let start = Date()
    private var last = Date.distantPast
    private var shown = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ message: String, done: Int, total: Int, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        // Only imports that take a while get a progress line, redrawn at most ten times a second.
        guard force ? shown || now.timeIntervalSince(start) > 0.5 : now.timeIntervalSince(start) > 0.5 && now.timeIntervalSince(last) > 0.1 else { return }
        last = now
        shown = true
        FileHandle.standardError.write(Data("\r\u{1B}[K\(message)".utf8))
    }

    func finish() {
        guard shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

// MARK: - --from: the SDKs' own caches

extension SDKCacheSelection: ExpressibleByArgument {}

/// The Secret Service as the interchange's read-only keyring: lookups by attributes, secrets of
/// unlocked items; never a write, never an unlock.
final class SecretServiceKeyring: SDKKeyring {
    private let lookup: SecretServiceLookup
    private var found: [String: SecretServiceItem] = [:]

    init() throws { lookup = try SecretServiceLookup() }

    func items(matching attributes: [SDKAttribute]) throws -> [SDKKeyringItem] {
        try lookup.search(attributes.map { ($0.name, $0.value) }).map { item in
            found[item.path] = item
            return SDKKeyringItem(id: item.path, label: item.label, collection: item.collectionLabel, isLocked: item.isLocked)
        }
    }

    func secrets(of items: [SDKKeyringItem]) throws -> [String: Data] {
        try lookup.secrets(of: items.compactMap { found[$0.id] })
    }
}

/// `import --from` and `import --list-sources`.
enum SDKSources {
    /// Connects to the Secret Service when `selection` reads it. For `auto`, an unreachable one is
    /// left out with a note; for `secret-service:LAYOUT` it is the command's failure (74).
    static func keyring(for selection: SDKCacheSelection, notes: inout [String]) throws -> SecretServiceKeyring? {
        guard selection.usesKeyring else { return nil }
        do {
            return try SecretServiceKeyring()
        } catch {
            if selection == .auto {
                notes.append("the Secret Service was not searched: \(error)")
                return nil
            }
            throw fail("\(selection)", error)
        }
    }

    static func survey(_ selection: SDKCacheSelection, keyring: SecretServiceKeyring?) throws -> SDKCacheSurvey {
        do {
            return try SDKCacheFinder.survey(selection, keyring: keyring, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw fail("\(selection)", error)
        }
    }

    static func importCaches(_ selection: SDKCacheSelection, storeOptions: StoreOptions) throws {
        var notes: [String] = []
        let keyring = try keyring(for: selection, notes: &notes)
        let survey = try survey(selection, keyring: keyring)
        for note in notes { printError("note: \(note)") }
        guard !survey.found.isEmpty else {
            var message = "no \(selection == .auto ? "SDK" : "\(selection)") token cache found; looked in:"
            for place in survey.missing { message += "\n  \(place)" }
            for place in survey.signalFiles { message += "\n  \(place) (empty: a signal file beside a keyring cache)" }
            printError(message)
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
            text += "  found \(location): " + (entries == 0 ? "an empty cache\n" : "\(entries) entr\(entries == 1 ? "y" : "ies")\n")
        }
        if selection == .auto {
            let foundNames = Set(report.sources.map(\.location.selection))
                .union(survey.foundAgain.map { String($0.prefix { $0 != " " }) })
            var missing: [String] = []
            for place in survey.missing {
                let name = String(place.prefix { $0 != " " })
                if !foundNames.contains(name) && !missing.contains(name) { missing.append(name) }
            }
            if !missing.isEmpty { text += "  not found: \(missing.joined(separator: ", "))\n" }
        }
        text += Import.list("skipped", report.skipped)
        text += Import.list("adjusted", report.adjusted)
        printOutput(Data(text.utf8))
        if report.entries == 0 {
            printError("the caches found are empty; nothing was imported")
            throw ExitCode(Status.notFound)
        }
    }

    static func list(_ selection: SDKCacheSelection) throws {
        var notes: [String] = []
        let keyring = try keyring(for: selection, notes: &notes)
        let survey = try survey(selection, keyring: keyring)
        var text = ""
        for note in notes { text += "secret-service: not searched: \(note.replacingOccurrences(of: "the Secret Service was not searched: ", with: ""))\n" }
        for location in survey.found {
            switch location.place {
            case .keyring(let item, let layout):
                text += "found    \(location) (\(layout.encoding)\(item.isLocked ? "; locked: unlock the collection to import it" : ""))\n"
            case .file(_, let size):
                text += "found    \(location) (MSAL JSON, \(size) bytes)\n"
            }
        }
        for place in survey.foundAgain { text += "same     \(place) (listed above under another layout)\n" }
        for place in survey.signalFiles { text += "empty    \(place) (a signal file beside a keyring cache)\n" }
        for place in survey.missing { text += "missing  \(place)\n" }
        printOutput(Data(text.utf8))
        if survey.found.isEmpty { throw ExitCode(Status.notFound) }
    }

    /// Prints `error` prefixed with `context` and returns the exit code that fits it.
    static func fail(_ context: String, _ error: any Error) -> ExitCode {
        printError("\(context): \(error)")
        return ExitCode(status(for: error))
    }
}
