#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CacheStore

/// The error object of the C ABI (`tokencache_error_t`): a category and two C strings it owns.
final class ABIError {
    let category: ErrorCategory
    let message: UnsafeMutablePointer<CChar>
    let remedy: UnsafeMutablePointer<CChar>?

    init(category: ErrorCategory, message: String, remedy: String?) {
        self.category = category
        self.message = strdup(message)!
        self.remedy = remedy.map { strdup($0)! }
    }

    deinit {
        free(message)
        free(remedy)
    }
}

/// An argument the caller got wrong: reported as ``ErrorCategory/badInput``.
struct BadInput: Error, CategorizedError, CustomStringConvertible {
    let description: String
    var category: ErrorCategory { .badInput }
    init(_ description: String) { self.description = description }
}

/// A lookup that matched nothing: ``ErrorCategory/notFound``.
struct NotFound: Error, CategorizedError, CustomStringConvertible {
    let description: String
    var category: ErrorCategory { .notFound }
    init(_ description: String) { self.description = description }
}

/// Runs one ABI call: `body`'s errors become the returned category and, when `error` is not NULL,
/// an error object; on success `*error` is set to NULL.
func abiCall(_ error: UnsafeMutablePointer<OpaquePointer?>?, _ body: () throws -> Void) -> Int32 {
    error?.pointee = nil
    do {
        try body()
        return 0
    } catch let failure {
        let category = ErrorCategory(of: failure)
        if let error {
            let remedy = (failure as? any CategorizedError)?.remedy
            let object = ABIError(category: category, message: String(describing: failure), remedy: remedy)
            error.pointee = OpaquePointer(Unmanaged.passRetained(object).toOpaque())
        }
        return category.rawValue
    }
}

/// Hands `text` to the caller as a malloc'ed C string (freed with `tokencache_free`).
func deliver(_ text: String, to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
    guard let out else { return }
    out.pointee = strdup(text)
}
