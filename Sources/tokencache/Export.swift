import ArgumentParser
import CacheStore
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

extension ExportFormat: ExpressibleByArgument {}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export the store as an MSAL JSON cache, raw keychain items or an ADAL.NET v3 blob.",
        discussion: """
            msal-json writes the form MSAL.NET writes (MSAL Python, Node, Java and Go read it too). \
            Exporting into an existing MSAL JSON file merges: its entries that the store does not \
            have, and other SDKs' top-level nodes, are kept. keychain-items writes every item of the \
            store's access groups, losslessly. adal-v3 writes the users' refresh tokens as the \
            ADAL.NET v3 blob, for ADAL.NET apps. Files are replaced atomically and created with mode \
            0600. The output holds tokens: without --output it goes to standard output, which must \
            not be a terminal.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("The format.", valueName: ExportFormat.allCases.map(\.rawValue).joined(separator: "|")))
    var format: ExportFormat = .msalJSON

    @Option(name: .shortAndLong, help: "The file to write (merged into, for msal-json).")
    var output: String?

    func run() throws {
        let store = try storeOptions.open()
        let interchange = try exitOnFailure { try CacheInterchange(store: store) }
        guard let output else {
            if isatty(STDOUT_FILENO) == 1 {
                printError("the export holds tokens: give --output FILE or redirect standard output")
                throw ExitCode(Status.usage)
            }
            let (data, report) = try exitOnFailure { try interchange.export(format) }
            printOutput(data)
            StandardStream.error.send(issueLines("skipped", report.skipped))
            return
        }
        let report = try exitOnFailure { try interchange.export(format, toFile: output) }
        var text = "Exported \(report.exported) \(format == .msalJSON ? "entr\(report.exported == 1 ? "y" : "ies")" : "item\(report.exported == 1 ? "" : "s")") to \(output) (\(format))"
        if report.kept > 0 || report.keptUnknownNodes > 0 {
            text += "; kept \(report.kept) entr\(report.kept == 1 ? "y" : "ies") and \(report.keptUnknownNodes) other node\(report.keptUnknownNodes == 1 ? "" : "s") of the file"
        }
        text += ".\n" + issueLines("skipped", report.skipped)
        printOutput(Data(text.utf8))
    }
}
