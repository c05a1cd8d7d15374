import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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

struct ImportFile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "Import a token cache file into the store (`import FILE` for short).",
        discussion: """
            Formats: msal-json (the unified JSON cache of MSAL.NET, Python, Node, Java and Go), msal-v2 \
            (MSAL.NET 2.x), keychain-items (raw items, as `export --format keychain-items` writes \
            them), adal-v3 (the ADAL.NET v3 blob), adal-macos (ADAL for macOS's serialized cache), \
            adal-keychain-item (one ADAL for iOS keychain item's archive); \
            ADAL tokens become legacy ADAL items, where MSAL finds ADAL users. auto recognizes the format by content. Entries are keyed by their fields, not by \
            the keys in the file. A file that cannot be read in full imports nothing and exits 65 \
            with a message naming the file and the place; the store is unchanged. An MSAL JSON file is checked in full first, then \
            written in batches of about 4 MB, each its own transaction (a smaller file in one); if the \
            store fails midway, the message says how many items were committed, and importing the file \
            again completes it. `import sdk` reads the caches the SDKs keep on this machine.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The file to import; - reads standard input.")
    var file: String

    @Option(help: ArgumentHelp("The file's format.", valueName: ImportFormatOption.allValueStrings.joined(separator: "|")))
    var format: ImportFormatOption = .auto

    func run() throws {
        let store = try storeOptions.open()
        let interchange = try exitOnFailure { try CacheInterchange(store: store) }
        let source = file == "-" ? "stdin" : file
        let progress = ProgressLine(enabled: isatty(STDERR_FILENO) == 1)
        let report = try exitOnFailure {
            defer { progress.finish() }
            let data = try readCacheFile(file, source: source)
            let chosen: ImportFormat? = if case .format(let format) = format { format } else { nil }
            return try interchange.importData(
                data, source: source, format: chosen,
                progress: { done, total in
                    let text = total == 0 ? "checking \(source): \(done) entries" : "reading \(source): \(done)/\(total) entries"
                    progress.update(text, done: done, total: total)
                },
                beforeWrite: { count in progress.update("writing \(count) items", done: 1, total: 1, force: true) })
        }
        var text = "Imported \(report.imported) item\(report.imported == 1 ? "" : "s") from \(source) (\(report.format)): "
        text += "\(report.added) added, \(report.replaced) replaced"
        text += report.skipped.isEmpty ? ".\n" : "; \(report.skipped.count) entr\(report.skipped.count == 1 ? "y" : "ies") skipped.\n"
        text += issueLines("skipped", report.skipped)
        text += issueLines("adjusted", report.adjusted)
        printOutput(Data(text.utf8))
    }
}

/// The content of FILE as `import` and `dump` take it (`-` is standard input), at most
/// ``ImportDecoder/sizeLimit`` bytes; a missing file is an error naming it.
func readCacheFile(_ file: String, source: String) throws -> Data {
    if file == "-" { return try BoundedInput.readAll(STDIN_FILENO, source: source) }
    guard let content = try PrivateFile.read(file, limit: ImportDecoder.sizeLimit) else {
        throw InterchangeError.cannotRead(path: file, reason: "no such file")
    }
    return content
}
