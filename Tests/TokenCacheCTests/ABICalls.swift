#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenCacheC

/// What one C ABI call returned: its status, and the result or error message as text.
struct ABIOutcome {
    let status: Int32
    let text: String?
}

/// The C ABI as a C host calls it, with the results and errors freed.
enum ABI {
    static let ok: Int32 = 0
    static let badInput: Int32 = 2

    /// A handle on a fresh memory store.
    static func openMemory() -> OpaquePointer? {
        var cache: OpaquePointer?
        var error: OpaquePointer?
        let status = tokencache_open("memory", nil, 0, nil, &cache, &error)
        tokencache_error_free(error)
        return status == ok ? cache : nil
    }

    /// Runs a call that fills a `char **` result and a `tokencache_error_t **`.
    static func call(
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<OpaquePointer?>) -> Int32
    ) -> ABIOutcome {
        var result: UnsafeMutablePointer<CChar>?
        var error: OpaquePointer?
        let status = body(&result, &error)
        defer {
            tokencache_free(result)
            tokencache_error_free(error)
        }
        if status == ok { return ABIOutcome(status: status, text: result.map { String(cString: $0) }) }
        return ABIOutcome(status: status, text: tokencache_error_message(error).map { String(cString: $0) })
    }

    static func accounts(_ cache: OpaquePointer?) -> ABIOutcome {
        call { tokencache_accounts(cache, nil, $0, $1) }
    }

    static func search(_ cache: OpaquePointer?, _ kind: String, query: String?) -> ABIOutcome {
        call { result, error in
            if let query { return tokencache_search(cache, kind, query, nil, 0, result, error) }
            return tokencache_search(cache, kind, nil, nil, 0, result, error)
        }
    }

    static func writeEntries(_ cache: OpaquePointer?, _ document: String) -> ABIOutcome {
        call { tokencache_write_entries(cache, document, $0, $1) }
    }

    static func changeStamp(_ cache: OpaquePointer?) -> Int32 {
        var stamp: (UInt64, UInt64) = (0, 0)
        var error: OpaquePointer?
        let status = withUnsafeMutableBytes(of: &stamp) {
            tokencache_change_stamp(cache, $0.baseAddress!.assumingMemoryBound(to: UInt64.self), &error)
        }
        tokencache_error_free(error)
        return status
    }
}
