import CacheStore
import CacheStoreEncryption
import CacheStoreSecretService
import CacheStoreSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a SQLite store's data keys come from: `TOKENCACHE_KEY`.
///
/// - `auto` (the default): the Secret Service's default collection when it is reachable and unlocked,
///   else a key file `<store>.key` (0600) beside the store, announced once on stderr.
/// - `secret-service`: the Secret Service only; the store does not open without it.
/// - `file`: the key file only, even when a Secret Service runs.
///
/// Keys recorded by an earlier opening are found wherever they are among the allowed sources.
public enum KeyPolicy: String, Sendable, Hashable, CaseIterable {
    case auto
    case secretService = "secret-service"
    case file

    /// Parses `TOKENCACHE_KEY`; unset or empty is ``auto``.
    public init(environment: [String: String]) throws(StoreLocationError) {
        guard let text = environment["TOKENCACHE_KEY"], !text.isEmpty else {
            self = .auto
            return
        }
        guard let policy = KeyPolicy(rawValue: text) else {
            throw .invalidKeyPolicy(text)
        }
        self = policy
    }
}

/// The key sources chosen for a store, and why — what `tokencache doctor` shows.
public struct KeySelection: Sendable {
    public let policy: KeyPolicy
    /// Where keys are looked up, in order; new keys go to the first.
    public let sources: [any DataKeySource]
    /// The chosen primary source, in words, with the reason.
    public let reason: String
    /// Why the Secret Service was not used, when it was not.
    public let secretServiceProblem: SecretServiceError?

    /// Chooses the sources for the SQLite store at `path`.
    ///
    /// - Parameter notice: receives the one-time sentence shown when a key file is created.
    /// - Throws: the ``SecretServiceError`` when the policy is ``KeyPolicy/secretService`` and the
    ///   Secret Service cannot be used.
    public static func choose(
        for path: String, policy: KeyPolicy, environment: [String: String],
        notice: (@Sendable (String) -> Void)?
    ) throws -> KeySelection {
        let keyFile = KeyFile(path: path + ".key", notice: notice)
        if policy == .file {
            return KeySelection(policy: policy, sources: [keyFile], reason: "key file \(keyFile.path) (TOKENCACHE_KEY=file)", secretServiceProblem: nil)
        }
        let secretService = SecretServiceKeySource(collection: "default", unlock: .fail)
        do {
            guard SessionBus.address(environment: environment) != nil else { throw SecretServiceError.noSessionBus }
            try secretService.connect()
        } catch let error as SecretServiceError {
            if policy == .secretService { throw error }
            return KeySelection(
                policy: policy, sources: [keyFile],
                reason: "key file \(keyFile.path), because the Secret Service cannot be used", secretServiceProblem: error)
        }
        if policy == .secretService {
            return KeySelection(policy: policy, sources: [secretService],
                                reason: "the Secret Service's default collection (TOKENCACHE_KEY=secret-service)", secretServiceProblem: nil)
        }
        return KeySelection(
            policy: policy, sources: [secretService, keyFile],
            reason: "the Secret Service's default collection, which is reachable and unlocked (keys already in \(keyFile.path) are still found)",
            secretServiceProblem: nil)
    }
}
