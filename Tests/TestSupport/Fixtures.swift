import Foundation

/// The real cache files of `shared/fixtures`, read in place beside the checkout:
/// `<checkout>/../shared/fixtures`.
public enum Fixtures {
    /// The fixtures folder.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the checkout
        .deletingLastPathComponent()  // its parent, which holds shared/
        .appendingPathComponent("shared/fixtures")

    /// A file or folder of the fixtures, e.g. `msal-node/cache.json`.
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    /// The content of a fixture file.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }
}
