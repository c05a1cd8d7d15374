/// What kind of failure an error is, independent of the module that threw it.
///
/// Every public error type of tokencache conforms to ``CategorizedError`` and names one category, so
/// a caller can react to a failure without knowing every module's error types: the CLI derives its
/// exit status from it, and the C ABI hands it over as a stable number.
///
/// The raw values are part of the C ABI (`TOKENCACHE_ERROR_*` in `tokencache.h`) and never change; a new
/// category would get a new number.
public enum ErrorCategory: Int32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// What was asked for does not exist (an account, a collection, a file).
    case notFound = 1
    /// The request or the data handed in cannot be used: a malformed specification, JSON, token
    /// response or item. Retrying the same input fails the same way.
    case badInput = 2
    /// Something the operation needs cannot be reached now: the D-Bus session, the Secret Service, a
    /// data key, a file system, a database busy past its timeout. Retrying later may succeed.
    case unavailable = 3
    /// The operation is not allowed: a locked keyring, a dismissed prompt, a file's permissions, an
    /// access group the store was not opened for.
    case permission = 4
    /// Another writer changed the same thing since it was read.
    case conflict = 5
    /// Stored data cannot be read: a corrupt database, a payload failing authentication, a damaged
    /// keyring item or a file of another program where a store was expected.
    case damaged = 6
    /// A failure inside tokencache or a library it uses that no input explains.
    case `internal` = 7

    public var description: String {
        switch self {
        case .notFound: "not found"
        case .badInput: "bad input"
        case .unavailable: "unavailable"
        case .permission: "permission"
        case .conflict: "conflict"
        case .damaged: "damaged"
        case .internal: "internal"
        }
    }
}

/// An error that says which ``ErrorCategory`` it belongs to and, where there is one, what to do.
///
/// Conformances live beside each error type (`TypeName+Category.swift`). An error's `description`
/// says what happened; ``remedy`` is the step that fixes it, when the error knows one beyond its
/// description. Neither ever contains a secret.
public protocol CategorizedError: Error {
    /// The kind of failure.
    var category: ErrorCategory { get }
    /// What the user or caller can do about it, when there is something specific; `nil` otherwise.
    var remedy: String? { get }
}

extension CategorizedError {
    public var remedy: String? { nil }
}

extension ErrorCategory {
    /// The category of any error: its own when it is a ``CategorizedError``, else ``internal``.
    public init(of error: any Error) {
        self = (error as? any CategorizedError)?.category ?? .internal
    }
}
