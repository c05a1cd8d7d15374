import ArgumentParser
import CacheStoreLocation
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenCacheSchema
import TokenCacheJSON

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the configured store: backend, key source, D-Bus session, Secret Service, file modes, schema, integrity, items.",
        discussion: """
            Exits 0 when the configured store is usable, 74 when it is not, with the fix in words. \
            Doctor creates nothing: a store that does not exist yet is reported, not made, and no data key is created.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print the checks as JSON.")
    var json = false

    func run() throws {
        let variables = ProcessInfo.processInfo.environment
        let environment = StoreEnvironment(variables: variables, currentDirectory: FileManager.default.currentDirectoryPath)
        let (specification, groups) = try exitOnFailure {
            (try environment.specification(flag: storeOptions.store), try environment.accessGroups(flags: storeOptions.accessGroups))
        }
        let origin = switch environment.origin(flag: storeOptions.store) {
        case .given: "--store"
        case .environment: "TOKENCACHE_STORE"
        case .default: "the default"
        }
        let diagnosis = StoreDiagnosis(specification: specification, accessGroups: groups, environment: variables)
        let checks = [
            StoreDiagnosis.Check(name: "store", verdict: .ok, detail: "\(specification) (from \(origin))"),
            StoreDiagnosis.Check(name: "access groups", verdict: .ok, detail: groups.all.joined(separator: ", ")),
        ] + diagnosis.checks

        if json {
            let entries = checks.map { check -> JSONValue in
                var object: JSONObject = ["name": .string(check.name), "status": .string(check.verdict.rawValue), "detail": .string(check.detail)]
                if let remedy = check.remedy { object["fix"] = .string(remedy) }
                return .object(object)
            }
            printJSON(.object(["usable": .bool(diagnosis.isUsable), "checks": .array(entries)]))
        } else {
            var text = ""
            for check in checks {
                let mark = switch check.verdict { case .ok: "ok     "; case .warning: "warning"; case .problem: "PROBLEM" }
                text += "[\(mark)] \(check.name): \(check.detail)\n"
                if let remedy = check.remedy { text += "          fix: \(remedy)\n" }
                if check.name == "damaged items", check.verdict != .ok {
                    text += "          (`tokencache repair` removes them in one transaction)\n"
                }
            }
            text += diagnosis.isUsable ? "The configured store is usable.\n" : "The configured store is NOT usable; see the fixes above.\n"
            printOutput(Data(text.utf8))
        }
        if !diagnosis.isUsable { throw ExitCode(Status.ioError) }
    }
}
