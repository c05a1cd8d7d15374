import Foundation

/// The real cache files of `Tests/Fixtures` (their provenance and license are in its README).
public enum Fixtures {
    /// The fixtures folder.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures")

    /// A file or folder of the fixtures, e.g. `msal-node/cache.json`.
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    /// The content of a fixture file.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }
}
