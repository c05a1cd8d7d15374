#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TokenCacheVersion

@_cdecl("tokencache_version")
public func tokencache_version() -> UnsafePointer<CChar> {
    UnsafeRawPointer(tokencacheVersion.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("tokencache_abi_version")
public func tokencache_abi_version() -> Int32 { 1 }

@_cdecl("tokencache_free")
public func tokencache_free(_ result: UnsafeMutablePointer<CChar>?) {
    free(result)
}

@_cdecl("tokencache_error_free")
public func tokencache_error_free(_ error: OpaquePointer?) {
    guard let error else { return }
    Unmanaged<ABIError>.fromOpaque(UnsafeRawPointer(error)).release()
}

private func errorObject(_ error: OpaquePointer?) -> ABIError? {
    error.map { Unmanaged<ABIError>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

@_cdecl("tokencache_error_category_of")
public func tokencache_error_category_of(_ error: OpaquePointer?) -> Int32 {
    errorObject(error)?.category.rawValue ?? 7
}

@_cdecl("tokencache_error_message")
public func tokencache_error_message(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    errorObject(error).map { UnsafePointer($0.message) }
}

@_cdecl("tokencache_error_remedy")
public func tokencache_error_remedy(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    errorObject(error)?.remedy.map { UnsafePointer($0) }
}
