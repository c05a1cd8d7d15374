import ArgumentParser
import CacheStore
import CacheStoreEncryption
import CacheStoreLocation
import CacheStoreSQLite
import CacheStoreSecretService
import Foundation
import TokenCacheSchema

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

    enum Outcome: String { case ok, warning, problem }

    struct Check {
        let name: String
        let outcome: Outcome
        let detail: String
        var fix: String?
    }

    func run() throws {
        let variables = ProcessInfo.processInfo.environment
        let environment = StoreEnvironment(variables: variables, currentDirectory: FileManager.default.currentDirectoryPath)
        var checks: [Check] = []
        let (specification, groups) = try resolvingArguments {
            (try environment.specification(flag: storeOptions.store), try environment.accessGroups(flags: storeOptions.accessGroups))
        }
        let origin = storeOptions.store != nil ? "--store" : (variables["TOKENCACHE_STORE"].map { $0.isEmpty ? nil : $0 } ?? nil) != nil ? "TOKENCACHE_STORE" : "the default"
        checks.append(Check(name: "store", outcome: .ok, detail: "\(specification) (from \(origin))"))
        checks.append(Check(name: "access groups", outcome: .ok, detail: groups.all.joined(separator: ", ")))

        // libsecret (loaded at run time), the D-Bus session and the Secret Service, which every
        // backend but memory may need.
        var secretServiceError: SecretServiceError?
        do {
            try SecretServiceLibrary.load()
            checks.append(Check(name: "libsecret", outcome: .ok, detail: "loaded (\(SecretServiceLibrary.name))"))
        } catch {
            secretServiceError = error
            checks.append(Check(name: "libsecret", outcome: .warning, detail: "\(error)"))
        }
        let bus = SessionBus.address(environment: variables)
        if let bus {
            checks.append(Check(name: "D-Bus session", outcome: .ok, detail: "present (\(bus))"))
        } else {
            secretServiceError = secretServiceError ?? .noSessionBus
            checks.append(Check(name: "D-Bus session", outcome: .warning,
                                detail: "missing: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist, so no Secret Service can be reached",
                                fix: "run inside your desktop session, or `dbus-run-session -- $SHELL` with an unlocked keyring"))
        }
        if bus != nil, secretServiceError == nil {
            do {
                let store = try SecretServiceStore(accessGroups: groups, options: .init(collection: "default", unlock: .fail))
                checks.append(Check(name: "Secret Service", outcome: .ok,
                                    detail: "reachable; default collection \(store.collectionDescription) present and unlocked"))
            } catch {
                secretServiceError = error
                checks.append(Check(name: "Secret Service", outcome: .warning, detail: "not usable: \(error)"))
            }
        }

        switch specification {
        case .memory:
            checks.append(Check(name: "backend", outcome: .ok, detail: "memory: items live only as long as the process; nothing to check"))
        case .secretService(let collection):
            checks.append(contentsOf: secretServiceChecks(collection: collection, groups: groups, variables: variables))
        case .sqlite(let path):
            checks.append(contentsOf: sqliteChecks(path: path, groups: groups, variables: variables, secretServiceError: secretServiceError))
        }

        let usable = !checks.contains { $0.outcome == .problem }
        if json {
            var entries: [JSONValue] = []
            for check in checks {
                var object: JSONObject = ["name": .string(check.name), "status": .string(check.outcome.rawValue), "detail": .string(check.detail)]
                if let fix = check.fix { object["fix"] = .string(fix) }
                entries.append(.object(object))
            }
            printJSON(.object(["usable": .bool(usable), "checks": .array(entries)]))
        } else {
            var text = ""
            for check in checks {
                let mark = switch check.outcome { case .ok: "ok     "; case .warning: "warning"; case .problem: "PROBLEM" }
                text += "[\(mark)] \(check.name): \(check.detail)\n"
                if let fix = check.fix { text += "          fix: \(fix)\n" }
            }
            text += usable ? "The configured store is usable.\n" : "The configured store is NOT usable; see the fixes above.\n"
            printOutput(Data(text.utf8))
        }
        if !usable { throw ExitCode(Status.ioError) }
    }

    private func secretServiceChecks(collection: String, groups: AccessGroups, variables: [String: String]) -> [Check] {
        do {
            let store = try SecretServiceStore(
                accessGroups: groups, options: .init(collection: collection, unlock: StoreOpener.unlockPolicy(variables)))
            var checks = [Check(name: "backend", outcome: .ok,
                                detail: "Secret Service, collection \(store.collectionDescription), one keyring item per (access group, account)")]
            let items = try store.allItems()
            let partitions = try store.partitionCount()
            for group in groups.all {
                let count = items.filter { $0.accessGroup.utf8.elementsEqual(group.utf8) }.count
                checks.append(Check(name: "items in \(group)", outcome: .ok, detail: "\(count)"))
            }
            checks.append(Check(name: "partitions", outcome: .ok, detail: "\(partitions) keyring item\(partitions == 1 ? "" : "s")"))
            checks.append(Check(name: "key source", outcome: .ok, detail: "none needed: the keyring encrypts its own items"))
            return checks
        } catch {
            return [Check(name: "backend", outcome: .problem, detail: "Secret Service store \(collection) cannot be used",
                          fix: String(describing: error))]
        }
    }

    private func sqliteChecks(path: String, groups: AccessGroups, variables: [String: String], secretServiceError: SecretServiceError?) -> [Check] {
        var checks = [Check(name: "backend", outcome: .ok, detail: "SQLite, one file in WAL mode: \(path)")]
        // Key source.
        let selection: KeySelection
        do {
            let policy = try KeyPolicy(environment: variables)
            selection = try KeySelection.choose(for: path, policy: policy, environment: variables, notice: { _ in })
            checks.append(Check(name: "key source", outcome: .ok, detail: "\(selection.reason) (TOKENCACHE_KEY=\(policy.rawValue))"))
            if selection.secretServiceProblem != nil, policy == .auto {
                checks.append(Check(name: "key protection", outcome: .warning,
                                    detail: "a key file protects a copied store, not against programs running as you",
                                    fix: "to keep keys in the keyring instead, run inside a D-Bus session with an unlocked Secret Service (see above)"))
            }
        } catch {
            checks.append(Check(name: "key source", outcome: .problem,
                                detail: "TOKENCACHE_KEY=\(variables["TOKENCACHE_KEY"] ?? "auto") cannot be satisfied", fix: String(describing: error)))
            return checks
        }

        // Files and modes.
        let directory = (path as NSString).deletingLastPathComponent
        guard FileManager.default.fileExists(atPath: path) else {
            let writable = FileManager.default.fileExists(atPath: directory) ? access(directory, W_OK) == 0 : true
            checks.append(Check(name: "store file", outcome: writable ? .ok : .problem,
                                detail: "does not exist yet; the first command that opens it creates it (0600, directory 0700)",
                                fix: writable ? nil : "make \(directory) writable or choose another --store"))
            return checks
        }
        for (name, file, wanted) in [("store file", path, 0o600), ("directory", directory, 0o700),
                                     ("write-ahead log", path + "-wal", 0o600), ("key file", path + ".key", 0o600)] {
            guard let mode = try? (FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue else { continue }
            let wide = mode & 0o077 != 0
            checks.append(Check(
                name: "\(name) mode", outcome: wide ? (name == "key file" ? .problem : .warning) : .ok,
                detail: "\(file): \(String(mode, radix: 8))",
                fix: wide ? "chmod \(String(wanted, radix: 8)) \(file)" : nil))
        }

        // Open without creating keys or sealing anything, then look each recorded key up.
        do {
            let store = try SQLiteStore(path: path, accessGroups: groups)
            checks.append(Check(name: "schema version", outcome: .ok, detail: "\(try store.schemaVersion())"))
            let findings = try store.integrityCheck()
            checks.append(Check(name: "integrity check", outcome: findings.isEmpty ? .ok : .problem,
                                detail: findings.isEmpty ? "ok" : findings.prefix(5).joined(separator: "; "),
                                fix: findings.isEmpty ? nil : "the file is damaged: restore it from a backup, or export what is readable with `tokencache dump --json --reveal-secrets`"))
            let recorded = try store.recordedKeys()
            let counts = try store.itemCounts()
            for group in groups.all {
                let count = counts[group] ?? (0, 0)
                let plain = count.total - count.sealed
                var detail = "\(count.total) item\(count.total == 1 ? "" : "s"), \(count.sealed) sealed"
                var outcome = Outcome.ok
                var fix: String?
                if let key = recorded[group] {
                    let id = key.keyID.map { String(format: "%02x", $0) }.joined()
                    let source = selection.sources.first { (try? $0.existingKey(for: group, id: key.keyID)) != nil }
                    if let source {
                        detail += "; data key \(id) found in \(source)"
                    } else {
                        outcome = .problem
                        detail += "; data key \(id) (kept in \(key.source)) is not in \(selection.sources.map(\.description).joined(separator: " or "))"
                        fix = key.source == KeySourceKind.secretService.rawValue
                            ? "run inside the session whose keyring holds the key (unlocked), or restore that keyring"
                            : "restore the key file \(path).key beside the store"
                    }
                } else {
                    detail += "; no data key yet (one is made the next time a command opens the store)"
                }
                if plain > 0 { detail += "; \(plain) plain payload\(plain == 1 ? "" : "s") will be sealed on the next open" }
                checks.append(Check(name: "items in \(group)", outcome: outcome, detail: detail, fix: fix))
            }
        } catch {
            checks.append(Check(name: "open", outcome: .problem, detail: "the store cannot be opened", fix: String(describing: error)))
        }
        return checks
    }
}
