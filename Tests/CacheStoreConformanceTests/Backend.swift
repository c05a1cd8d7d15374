import Testing
import CacheStore
import CacheStoreSQLite
import Foundation

/// A backend under test, and how to open a fresh store of it.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case sqlite

    var testDescription: String { rawValue }

    /// A new, empty store for `groups`. SQLite stores live in a new temporary directory.
    func makeStore(groups: [String] = ["group.a", "group.b"], maximumDataSize: Int = StoreLimits.maximumDataSize) throws -> any ItemStore {
        let accessGroups = try AccessGroups(groups)
        switch self {
        case .memory:
            return MemoryStore(accessGroups: accessGroups, maximumDataSize: maximumDataSize)
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("tokencache-conformance-\(UUID().uuidString)")
            return try SQLiteStore(
                path: directory.appendingPathComponent("cache.sqlite").path,
                accessGroups: accessGroups,
                options: .init(maximumDataSize: maximumDataSize))
        }
    }
}

