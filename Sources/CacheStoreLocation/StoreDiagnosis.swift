import CacheStore
import CacheStoreSQLite
import CacheStoreSecretService
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether the store a process would use is usable, and why not: the checks `tokencache doctor`
/// shows, as data that any program linking the library can run and render.
///
/// A diagnosis creates nothing: a store that does not exist yet is reported, not made, and no data
/// key is created. Checks run in order and share what they learn (``Findings``); each is one
/// function in ``probes``, so adding a check is adding one function there.
public struct StoreDiagnosis: Sendable {
    /// How a check came out.
    public enum Verdict: String, Sendable, Hashable {
        /// As it should be.
        case ok
        /// Usable, but worth a look.
        case warning
        /// The store cannot be used until this is fixed.
        case problem
    }

    /// One thing looked at: what, how it came out, the detail, and the remedy when there is one.
    public struct Check: Sendable, Hashable {
        public var name: String
        public var verdict: Verdict
        public var detail: String
        /// What to do about a warning or problem, in words.
        public var remedy: String?

        public init(name: String, verdict: Verdict, detail: String, remedy: String? = nil) {
            self.name = name
            self.verdict = verdict
            self.detail = detail
            self.remedy = remedy
        }
    }

    /// What the checks know and learn as they run, in order.
    struct Findings {
        let specification: StoreSpecification
        let accessGroups: AccessGroups
        let environment: [String: String]
        /// Why the Secret Service cannot be used, once a check found out.
        var secretServiceProblem: SecretServiceError?
        /// The key sources of a SQLite store, once chosen.
        var keySelection: KeySelection?
        /// Set by a check after which the remaining checks of the backend have nothing to look at.
        var finished = false
    }

    /// A check: reads and extends the findings, returns what it saw.
    typealias Probe = @Sendable (inout Findings) -> [Check]

    /// Every check, in the order they run and are shown.
    static let probes: [Probe] = [
        libsecret, sessionBus, secretService, memoryBackend, secretServiceBackend, redisBackend,
        sqliteBackend, sqliteKeySource, sqliteFiles, sqliteContent, sqliteDamage,
    ]

    public let specification: StoreSpecification
    public let accessGroups: AccessGroups
    public let checks: [Check]

    /// Whether no check found a problem.
    public var isUsable: Bool { !checks.contains { $0.verdict == .problem } }

    /// Runs every check on the store `specification` names, opened for `accessGroups`.
    ///
    /// - Parameter environment: the variables the store would be opened with (`TOKENCACHE_KEY`, the
    ///   D-Bus session, `DISPLAY`).
    public init(
        specification: StoreSpecification, accessGroups: AccessGroups,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.specification = specification
        self.accessGroups = accessGroups
        var findings = Findings(specification: specification, accessGroups: accessGroups, environment: environment)
        var checks: [Check] = []
        for probe in Self.probes where !findings.finished {
            checks += probe(&findings)
        }
        self.checks = checks
    }
}
