import CacheStore

/// Resolves the store and access groups a process uses from flags, environment variables and XDG
/// defaults, in that order of precedence.
///
/// - Store: `--store`, else `TOKENCACHE_STORE`, else `sqlite:$XDG_DATA_HOME/tokencache/cache.sqlite`
///   (`~/.local/share/tokencache/cache.sqlite` when `XDG_DATA_HOME` is unset, empty or relative, as
///   the XDG Base Directory specification says).
/// - Access groups: `--access-group` (repeatable), else `TOKENCACHE_ACCESS_GROUPS` (comma-separated),
///   else ``defaultAccessGroup``. The first is where writes go.
public struct StoreEnvironment: Sendable {
    /// The access group MSAL and ADAL on iOS share by default.
    public static let defaultAccessGroup = "com.microsoft.adalcache"

    public let variables: [String: String]
    public let currentDirectory: String

    /// - Parameters:
    ///   - variables: the process environment (`ProcessInfo.processInfo.environment`).
    ///   - currentDirectory: where relative paths start.
    public init(variables: [String: String], currentDirectory: String) {
        self.variables = variables
        self.currentDirectory = currentDirectory
    }

    /// The default SQLite file, or an error when neither `XDG_DATA_HOME` nor `HOME` gives a place.
    public func defaultSQLitePath() throws(StoreLocationError) -> String {
        if let data = variables["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/tokencache/cache.sqlite"
        }
        guard let home = variables["HOME"], home.hasPrefix("/") else {
            throw .noDefaultLocation
        }
        return home + "/.local/share/tokencache/cache.sqlite"
    }

    /// Where the choice of store came from.
    public enum Origin: Sendable, Hashable {
        /// The caller's own setting (the CLI's `--store`).
        case given
        /// `TOKENCACHE_STORE`.
        case environment
        /// The default SQLite file.
        case `default`
    }

    /// Where ``specification(flag:)`` takes the store from.
    public func origin(flag: String?) -> Origin {
        if flag != nil { return .given }
        return variables["TOKENCACHE_STORE"].map { !$0.isEmpty } == true ? .environment : .default
    }

    /// The store to open: `flag` if given, else `TOKENCACHE_STORE`, else the default SQLite file.
    public func specification(flag: String?) throws(StoreLocationError) -> StoreSpecification {
        if let text = flag ?? variables["TOKENCACHE_STORE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return try StoreSpecification(parsing: text, currentDirectory: currentDirectory)
        }
        return .sqlite(path: try defaultSQLitePath())
    }

    /// The access groups: `flags` if any, else `TOKENCACHE_ACCESS_GROUPS`, else the default group.
    public func accessGroups(flags: [String]) throws(CacheStoreError) -> AccessGroups {
        if !flags.isEmpty { return try AccessGroups(flags) }
        if let list = variables["TOKENCACHE_ACCESS_GROUPS"] {
            let groups = list.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
            if !groups.isEmpty { return try AccessGroups(groups) }
        }
        return try AccessGroups([Self.defaultAccessGroup])
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var view = Substring(self)
        while view.first?.isWhitespace == true { view = view.dropFirst() }
        while view.last?.isWhitespace == true { view = view.dropLast() }
        return String(view)
    }
}
