/// The directory part and the last component of a file path, split at `/` as POSIX paths are.
///
/// Trailing slashes are ignored (`a/b/` names `b` in `a`); the root `/` is its own directory and its
/// own last component; a name without a slash has the directory `""`. Repeated slashes are kept as
/// written inside the directory part (`a//b` is `b` in `a`, `///a///b` is `b` in `///a`), which
/// names the same directory.
public enum PathComponents {
    /// The path without its last component: `/a/b/c` → `/a/b`, `/a` → `/`, `a` → `""`.
    public static func directory(of path: String) -> String {
        let bytes = Array(path.utf8)
        guard let end = endWithoutTrailingSlashes(bytes) else { return path.isEmpty ? "" : "/" }
        guard let slash = bytes[..<end].lastIndex(of: slash) else { return "" }
        var directoryEnd = slash
        while directoryEnd > 0 && bytes[directoryEnd - 1] == Self.slash { directoryEnd -= 1 }
        return directoryEnd == 0 ? "/" : String(decoding: bytes[..<directoryEnd], as: UTF8.self)
    }

    /// The last component of the path: `/a/b/c` → `c`, `a/b/` → `b`, `/` → `/`.
    public static func lastComponent(of path: String) -> String {
        let bytes = Array(path.utf8)
        guard let end = endWithoutTrailingSlashes(bytes) else { return path.isEmpty ? "" : "/" }
        let start = bytes[..<end].lastIndex(of: slash).map { $0 + 1 } ?? 0
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static let slash = UInt8(ascii: "/")

    /// The end of the path with its trailing slashes left off; `nil` when nothing else is left.
    private static func endWithoutTrailingSlashes(_ bytes: [UInt8]) -> Int? {
        var end = bytes.count
        while end > 0 && bytes[end - 1] == slash { end -= 1 }
        return end == 0 ? nil : end
    }
}
