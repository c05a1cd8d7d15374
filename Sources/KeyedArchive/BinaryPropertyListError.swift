/// Why bytes could not be read as a binary property list. Never quotes the content.
public struct BinaryPropertyListError: Error, Sendable, CustomStringConvertible, Hashable {
    /// What is wrong.
    public let reason: String
    /// The byte offset where reading went wrong, when there is one.
    public let offset: Int?

    public init(_ reason: String, offset: Int? = nil) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        offset.map { "binary property list: \(reason) at byte \($0)" } ?? "binary property list: \(reason)"
    }
}
