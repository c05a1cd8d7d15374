
/// Which SDK caches to read: `secret-service:LAYOUT`, `file:LAYOUT`, or `auto` (every place of every layout).
public enum SDKCacheSelection: Sendable, Hashable, CustomStringConvertible {
    case secretService(SDKCacheLayout)
    case file(SDKCacheLayout)
    case auto

    public init?(argument: String) {
        if argument == "auto" {
            self = .auto
            return
        }
        guard let colon = argument.firstIndex(of: ":"),
            let layout = SDKCacheLayout(rawValue: String(argument[argument.index(after: colon)...]))
        else { return nil }
        switch argument[..<colon] {
        case "secret-service": self = .secretService(layout)
        case "file": self = .file(layout)
        default: return nil
        }
    }

    /// Every value the selection accepts.
    public static var allValueStrings: [String] {
        SDKCacheLayout.allCases.map { "secret-service:\($0)" } + SDKCacheLayout.allCases.map { "file:\($0)" } + ["auto"]
    }

    public var description: String {
        switch self {
        case .secretService(let layout): "secret-service:\(layout)"
        case .file(let layout): "file:\(layout)"
        case .auto: "auto"
        }
    }

    /// Whether the selection reads the keyring.
    public var usesKeyring: Bool {
        switch self {
        case .secretService, .auto: true
        case .file: false
        }
    }

    /// The places to look, in order: for each layout its keyring items, then its files.
    var places: [(SDKCacheLayout, keyring: [SDKKeyringLayout], files: Bool)] {
        switch self {
        case .secretService(let layout): [(layout, layout.keyringLayouts, false)]
        case .file(let layout): [(layout, [], true)]
        case .auto: SDKCacheLayout.allCases.map { ($0, $0.keyringLayouts, true) }
        }
    }
}
