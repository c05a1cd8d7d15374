@_spi(Hex) import CacheStore
import CacheStoreEncryption
import CacheStoreSQLite
import CacheStoreSecretService
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
import PrivateFiles

// The checks of a diagnosis, in the order of `StoreDiagnosis.probes`. Each looks at one thing and
// returns [] when it does not apply to the store at hand.
extension StoreDiagnosis {
    /// libsecret, loaded at run time, which the Secret Service backend and SQLite's key sources use.
    static func libsecret(_ findings: inout Findings) -> [Check] {
        guard findings.specification.mayUseSecretService else { return [] }
        do {
            try SecretServiceLibrary.load()
            return [Check(name: "libsecret", verdict: .ok, detail: "loaded (\(SecretServiceLibrary.name))")]
        } catch {
            findings.secretServiceProblem = error
            return [Check(name: "libsecret", verdict: .warning, detail: "\(error)")]
        }
    }

    /// The D-Bus session, which the Secret Service backend and SQLite's key sources use.
    static func sessionBus(_ findings: inout Findings) -> [Check] {
        guard findings.specification.mayUseSecretService else { return [] }
        if let bus = SessionBus.address(environment: findings.environment) {
            return [Check(name: "D-Bus session", verdict: .ok, detail: "present (\(bus))")]
        }
        findings.secretServiceProblem = findings.secretServiceProblem ?? .noSessionBus
        return [Check(
            name: "D-Bus session", verdict: .warning,
            detail: "missing: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist, so no Secret Service can be reached",
            remedy: "run inside your desktop session, or `dbus-run-session -- $SHELL` with an unlocked keyring")]
    }

    /// The Secret Service and its default collection, without prompting.
    static func secretService(_ findings: inout Findings) -> [Check] {
        guard findings.specification.mayUseSecretService, findings.secretServiceProblem == nil else { return [] }
        do {
            let store = try SecretServiceStore(accessGroups: findings.accessGroups, options: .init(collection: "default", unlock: .fail))
            return [Check(name: "Secret Service", verdict: .ok,
                          detail: "reachable; default collection \(store.collectionDescription) present and unlocked")]
        } catch {
            findings.secretServiceProblem = error
            return [Check(name: "Secret Service", verdict: .warning, detail: "not usable: \(error)")]
        }
    }

    static func memoryBackend(_ findings: inout Findings) -> [Check] {
        guard case .memory = findings.specification else { return [] }
        return [Check(name: "backend", verdict: .ok, detail: "memory: items live only as long as the process; nothing to check")]
    }

    /// A Secret Service store: its collection, items per group and partitions.
    static func secretServiceBackend(_ findings: inout Findings) -> [Check] {
        guard case .secretService(let collection) = findings.specification else { return [] }
        do {
            let store = try SecretServiceStore(
                accessGroups: findings.accessGroups,
                options: .init(collection: collection, unlock: StoreOpener.unlockPolicy(findings.environment)))
            var checks = [Check(name: "backend", verdict: .ok,
                                detail: "Secret Service, collection \(store.collectionDescription), one keyring item per (access group, account)")]
            let items = try store.allItems()
            let partitions = try store.partitionCount()
            for group in findings.accessGroups.all {
                let count = items.filter { $0.accessGroup.utf8.elementsEqual(group.utf8) }.count
                checks.append(Check(name: "items in \(group)", verdict: .ok, detail: "\(count)"))
            }
            checks.append(Check(name: "partitions", verdict: .ok, detail: "\(partitions) keyring item\(partitions == 1 ? "" : "s")"))
            checks.append(damageCheck(try store.damagedItems()))
            checks.append(Check(name: "key source", verdict: .ok, detail: "none needed: the keyring encrypts its own items"))
            return checks
        } catch {
            return [Check(name: "backend", verdict: .problem, detail: "Secret Service store \(collection) cannot be used",
                          remedy: String(describing: error))]
        }
    }

    static func sqliteBackend(_ findings: inout Findings) -> [Check] {
        guard case .sqlite(let path) = findings.specification else { return [] }
        return [Check(name: "backend", verdict: .ok, detail: "SQLite, one file in WAL mode: \(path)")]
    }

    /// Where a SQLite store's data keys come from (`TOKENCACHE_KEY`), and why.
    static func sqliteKeySource(_ findings: inout Findings) -> [Check] {
        guard case .sqlite(let path) = findings.specification else { return [] }
        do {
            let policy = try KeyPolicy(environment: findings.environment)
            let selection = try KeySelection.choose(for: path, policy: policy, environment: findings.environment, notice: nil)
            findings.keySelection = selection
            var checks = [Check(name: "key source", verdict: .ok, detail: "\(selection.reason) (TOKENCACHE_KEY=\(policy.rawValue))")]
            if selection.secretServiceProblem != nil, policy == .auto {
                checks.append(Check(
                    name: "key protection", verdict: .warning,
                    detail: "a key file protects a copied store, not against programs running as you",
                    remedy: "to keep keys in the keyring instead, run inside a D-Bus session with an unlocked Secret Service (see above)"))
            }
            return checks
        } catch {
            findings.finished = true
            return [Check(name: "key source", verdict: .problem,
                          detail: "TOKENCACHE_KEY=\(findings.environment["TOKENCACHE_KEY"] ?? "auto") cannot be satisfied",
                          remedy: String(describing: error))]
        }
    }

    /// The store's file, directory, log and key file: present, and private.
    static func sqliteFiles(_ findings: inout Findings) -> [Check] {
        guard case .sqlite(let path) = findings.specification else { return [] }
        let directory = PathComponents.directory(of: path)
        guard FileManager.default.fileExists(atPath: path) else {
            findings.finished = true
            let writable = FileManager.default.fileExists(atPath: directory) ? access(directory, W_OK) == 0 : true
            return [Check(name: "store file", verdict: writable ? .ok : .problem,
                          detail: "does not exist yet; the first command that opens it creates it (0600, directory 0700)",
                          remedy: writable ? nil : "make \(directory) writable or choose another store")]
        }
        // Owner and mode as the store itself checks them when it opens (`FileFacts`): a file that
        // is not yours, is writable by others or is a symbolic link is refused.
        var checks: [Check] = []
        let files = FileFacts.store(at: path) + [FileFacts.entry(path + ".key")]
        for (name, facts) in zip(["directory", "store file", "write-ahead log", "shared-memory index", "key file"], files) where facts.exists {
            var problem = facts.problem
            if name == "key file", problem == nil, let mode = facts.mode, mode & 0o077 != 0 {
                problem = "its mode \(String(mode, radix: 8)) lets other users read it"
            }
            let owner = facts.owner.map { "owner uid \($0)" } ?? "owner unknown"
            let mode = facts.mode.map { "mode \(String($0, radix: 8))" } ?? "mode unknown"
            checks.append(Check(
                name: name, verdict: problem == nil ? .ok : .problem,
                detail: "\(facts.path): \(owner), \(mode)" + (problem.map { "; \($0)" } ?? ""),
                remedy: problem == nil ? nil : (name == "directory"
                    ? "keep the store in a directory only you (or root) can write, or one with the sticky bit"
                    : "if it is yours and you trust it, `chmod go-rwx \(facts.path)`; otherwise move it away and let a new one be created")))
        }
        return checks
    }

    /// Damaged items (see `DamagedItem`): rows of sealed groups that are plain or fail
    /// authentication. Reads skip them, so the store stays usable; listed by identity, never content.
    /// Opens only the groups with a recorded key, with the chosen sources, so nothing is created.
    static func sqliteDamage(_ findings: inout Findings) -> [Check] {
        guard case .sqlite(let path) = findings.specification, let selection = findings.keySelection,
            FileManager.default.fileExists(atPath: path),
            let plain = try? SQLiteStore(path: path, accessGroups: findings.accessGroups),
            let recorded = try? plain.recordedKeys(), !recorded.isEmpty,
            let keyed = try? AccessGroups(findings.accessGroups.all.filter { recorded[$0] != nil }),
            let store = try? SQLiteStore(path: path, accessGroups: keyed, options: .init(encryption: .init(keySources: selection.sources))),
            let damaged = try? store.damagedItems()
        else { return [] }
        return [damageCheck(damaged)]
    }

    /// The check that lists damaged items (see `DamagedItem`), a warning when there are any.
    static func damageCheck(_ damaged: [DamagedItem]) -> Check {
        Check(name: "damaged items", verdict: damaged.isEmpty ? .ok : .warning, detail: DamagedItem.summary(damaged),
              remedy: damaged.isEmpty ? nil : DamagedItem.remedy)
    }

    /// Opens the store without creating keys or sealing anything: schema, integrity, and each
    /// group's items and recorded data key, looked up in the chosen sources.
    static func sqliteContent(_ findings: inout Findings) -> [Check] {
        guard case .sqlite(let path) = findings.specification, let selection = findings.keySelection else { return [] }
        var checks: [Check] = []
        do {
            let store = try SQLiteStore(path: path, accessGroups: findings.accessGroups)
            checks.append(Check(name: "schema version", verdict: .ok, detail: "\(try store.schemaVersion())"))
            let damage = try store.integrityCheck()
            checks.append(Check(name: "integrity check", verdict: damage.isEmpty ? .ok : .problem,
                                detail: damage.isEmpty ? "ok" : damage.prefix(5).joined(separator: "; "),
                                remedy: damage.isEmpty ? nil : "the file is damaged: restore it from a backup, or export the items that still read"))
            let recorded = try store.recordedKeys()
            let counts = try store.itemCounts()
            for group in findings.accessGroups.all {
                checks.append(itemsCheck(group: group, count: counts[group] ?? (0, 0), key: recorded[group], selection: selection, path: path))
            }
        } catch {
            checks.append(Check(name: "open", verdict: .problem, detail: "the store cannot be opened", remedy: String(describing: error)))
        }
        return checks
    }

    private static func itemsCheck(
        group: String, count: (total: Int, sealed: Int), key: (keyID: Data, source: String)?, selection: KeySelection, path: String
    ) -> Check {
        let plain = count.total - count.sealed
        var check = Check(name: "items in \(group)", verdict: .ok,
                          detail: "\(count.total) item\(count.total == 1 ? "" : "s"), \(count.sealed) sealed")
        if let key {
            let id = lowercaseHex(key.keyID)
            if let source = selection.sources.first(where: { (try? $0.existingKey(for: group, id: key.keyID)) != nil }) {
                check.detail += "; data key \(id) found in \(source)"
            } else {
                check.verdict = .problem
                check.detail += "; data key \(id) (kept in \(key.source)) is not in \(selection.sources.map(\.description).joined(separator: " or "))"
                check.remedy = key.source == KeySourceKind.secretService.rawValue
                    ? "run inside the session whose keyring holds the key (unlocked), or restore that keyring"
                    : "restore the key file \(path).key beside the store"
            }
        } else {
            check.detail += "; no data key yet (one is made the next time the store is opened)"
        }
        if plain > 0 { check.detail += "; \(plain) plain payload\(plain == 1 ? "" : "s") will be sealed on the next open" }
        return check
    }
}

extension StoreSpecification {
    /// Whether opening this store may reach the Secret Service: its own backend, and SQLite, whose
    /// data keys may live there. Memory and Redis stores never do (Redis keys come from the
    /// specification's `key=`).
    var mayUseSecretService: Bool {
        switch self {
        case .sqlite, .secretService: true
        case .memory, .redis: false
        }
    }
}
