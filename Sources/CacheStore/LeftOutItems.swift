/// A kind of item a whole-store read can leave in the store, to be read later by account prefix
/// (``SplitReadingStore``): the items of ``types`` whose `account` attribute is *plain* — ASCII
/// without capital letters or NUL, and without white space (space, tab, line feed, vertical tab,
/// form feed, carriage return) at either end.
///
/// A plain account is its own normalized form (lower-cased, trimmed), so a caller that compares
/// accounts normalized finds every plain one that starts with a normalized prefix in one range of
/// an index over the raw attribute. Items with other accounts are always read with the rest.
public struct LeftOutItems: Sendable, Hashable {
    /// The item types left out (only those; items without a type never are).
    public let types: [UInt32]

    public init(types: [UInt32]) {
        self.types = types
    }

    /// Whether an item with these attributes is one of them.
    @inlinable
    public func contains(type: UInt32?, account: String) -> Bool {
        guard let type, types.contains(type) else { return false }
        return Self.isPlain(account)
    }

    /// Whether `account` is plain (the empty account is).
    @inlinable
    public static func isPlain(_ account: String) -> Bool {
        var account = account
        return account.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last else { return true }
            if isWhiteSpace(first) || isWhiteSpace(last) { return false }
            return bytes.allSatisfy(isPlainByte)
        }
    }

    /// Whether some plain account may start with `prefix`: it is ASCII without capitals or NUL,
    /// and does not start with white space (the empty prefix does).
    public static func mayStartPlainAccount(_ prefix: String) -> Bool {
        guard let first = prefix.utf8.first else { return true }
        return !isWhiteSpace(first) && prefix.utf8.allSatisfy(isPlainByte)
    }

    /// ASCII, not NUL, not a capital letter.
    @usableFromInline
    static func isPlainByte(_ byte: UInt8) -> Bool {
        byte != 0 && byte < 0x80 && !(byte >= 0x41 && byte <= 0x5A)
    }

    @usableFromInline
    static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }
}

/// A store that can read its whole content without some items (``LeftOutItems``) and hand those
/// over later, a prefix of accounts at a time: what lets a cache open without reading the bulk of
/// a store (access tokens, three quarters of a cache) and read an account's on its first use.
public protocol SplitReadingStore: ItemStore {
    /// ``ItemStore/readAllItems(chunkSize:into:)`` without the items `leftOut` describes.
    func readAllItems(chunkSize: Int, leavingOut leftOut: LeftOutItems, into receive: ([StoreItem]) -> Void) throws

    /// The items `leftOut` describes whose account starts with `accountPrefix` (every one of them
    /// when `nil`), in the store's order, from every open access group. One consistent read.
    func leftOutItems(_ leftOut: LeftOutItems, accountPrefix: String?) throws -> [StoreItem]
}
