@_spi(Text) @_spi(Pause) import CacheStore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The store's revision: one keyring item every writer bumps, so readers know when to reload.
extension SecretServiceStore {
    // MARK: - Revision

    struct Revision {
        var value: UInt64
        var pending: Bool
        /// When a pending mark was set (seconds since 1970).
        var since: Double
    }

    func readRevision(_ state: inout State) throws(SecretServiceError) -> Revision {
        if let path = state.revisionPath, let secret = try? connection.secrets([path])[path] {
            return Self.parseRevision(secret)
        }
        // Two first writers may each have created a revision item; every process reads the same one.
        let paths = try connection.search(attributes(kind: "revision"))
        guard let path = paths.min() else {
            state.revisionPath = nil
            return Revision(value: 0, pending: false, since: 0)
        }
        state.revisionPath = path
        return Self.parseRevision(try connection.secrets([path])[path] ?? Data())
    }

    static func parseRevision(_ secret: Data) -> Revision {
        let words = String(decoding: secret, as: UTF8.self).split(separator: " ")
        if words.count == 3, words[0] == "pending" {
            return Revision(value: UInt64(words[1], radix: 16) ?? 0, pending: true, since: Double(words[2]) ?? 0)
        }
        return Revision(value: words.first.flatMap { UInt64($0, radix: 16) } ?? 0, pending: false, since: 0)
    }

    func writeRevision(_ text: String, _ state: inout State) throws(SecretServiceError) {
        let known = state.revisionPath
        let path = try connection.store(
            label: "tokencache: change revision of store '\(options.namespace)'",
            attributes: attributes(kind: "revision"), secret: Data(text.utf8), contentType: "text/plain")
        state.revisionPath = path
        if path != known { try settleRevisionItems(text, &state) }
    }

    /// Keeps one revision item. The keyring does not serialise item creation, so two processes
    /// writing a store's first batch at once can each create one; readers take the least path, so
    /// a writer whose item is not that one writes its value there too and removes the others.
    func settleRevisionItems(_ text: String, _ state: inout State) throws(SecretServiceError) {
        let paths = try connection.search(attributes(kind: "revision"))
        guard paths.count > 1, let kept = paths.min() else { return }
        for path in paths where path != kept { try? connection.delete(path) }
        if state.revisionPath != kept {
            state.revisionPath = try connection.store(
                label: "tokencache: change revision of store '\(options.namespace)'",
                attributes: attributes(kind: "revision"), secret: Data(text.utf8), contentType: "text/plain")
        }
    }
}
