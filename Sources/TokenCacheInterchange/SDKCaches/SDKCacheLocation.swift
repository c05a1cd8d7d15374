/// A place where an SDK keeps its cache: one keyring item layout, or one file.
public struct SDKCachePlace: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case keyring(SDKKeyringLayout)
        case file(SDKCacheFile)
    }

    public var layout: SDKCacheLayout
    public var kind: Kind

    public init(layout: SDKCacheLayout, kind: Kind) {
        self.layout = layout
        self.kind = kind
    }

    /// The selection that reads this place: `secret-service:LAYOUT` or `file:LAYOUT`.
    public var selection: SDKCacheSelection {
        switch kind {
        case .keyring: .secretService(layout)
        case .file: .file(layout)
        }
    }

    /// Where it is, for messages: the writer and the attributes searched, or the file's path.
    public var description: String {
        switch kind {
        case .keyring(let keyringLayout):
            let attributes = keyringLayout.searchAttributes.map(\.description).joined(separator: ", ")
            return "\(selection) [\(keyringLayout.writer): \(attributes)]"
        case .file(let file):
            return "\(selection) \(file.path)"
        }
    }
}

/// A place where an SDK's cache was found.
public struct SDKCacheLocation: Sendable, Hashable, CustomStringConvertible {
    public enum Place: Sendable, Hashable {
        case keyring(SDKKeyringItem, SDKKeyringLayout)
        case file(SDKCacheFile, size: Int)
    }

    public var layout: SDKCacheLayout
    public var place: Place

    /// The place that was looked at.
    public var searched: SDKCachePlace {
        switch place {
        case .keyring(_, let keyringLayout): SDKCachePlace(layout: layout, kind: .keyring(keyringLayout))
        case .file(let file, _): SDKCachePlace(layout: layout, kind: .file(file))
        }
    }

    /// The selection that reads it: `secret-service:LAYOUT` or `file:LAYOUT`.
    public var selection: SDKCacheSelection { searched.selection }

    /// Where it is, for messages: the keyring item's label, collection and attributes, or the file's
    /// path. Never any content.
    public var description: String {
        guard case .keyring(let item, let keyringLayout) = place else { return searched.description }
        let attributes = keyringLayout.searchAttributes.map(\.description).joined(separator: ", ")
        return "\(selection) [keyring item \(quotedKey(item.label)) in collection \(quotedKey(item.collection)); \(attributes)]"
    }

    var encoding: SDKCacheEncoding {
        guard case .keyring(_, let keyringLayout) = place else { return .rawJSON }
        return keyringLayout.encoding
    }
}
