import CLibsecret

/// libsecret-1, which this module loads at run time rather than linking, so that a program using it
/// starts on a server or in a container without libsecret and keeps everything but the Secret Service.
///
/// The library is `libsecret-1.so.0`, found by the system loader's search path; the environment
/// variable `TOKENCACHE_LIBSECRET` may name another soname or an absolute path (tests use it to name
/// a library that does not exist). It is loaded once per process, on first use; every connection and
/// lookup calls ``load()`` first.
public enum SecretServiceLibrary {
    /// Loads libsecret, once per process; later calls return the first outcome.
    ///
    /// - Throws: ``SecretServiceError/libraryUnavailable(library:reason:)`` when it is not installed
    ///   or lacks a function this module calls.
    public static func load() throws(SecretServiceError) {
        guard tokencache_libsecret_load() == 0 else { return }
        let reason = tokencache_libsecret_failure().map { String(cString: $0) } ?? "unknown error"
        throw .libraryUnavailable(library: name, reason: reason)
    }

    /// The library tried: `libsecret-1.so.0`, or the value of `TOKENCACHE_LIBSECRET`.
    public static var name: String {
        String(cString: tokencache_libsecret_name())
    }
}
