import ArgumentParser
import CacheStore
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
            let data: Data
            if file == "-" {
                data = try FileHandle.standardInput.readToEnd() ?? Data()
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
