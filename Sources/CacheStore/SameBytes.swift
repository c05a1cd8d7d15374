#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether two strings have the same UTF-8 bytes: the equality item identities and the engine's
/// digested keys use. (`String`'s `==` is canonical equivalence, under which strings with different
/// bytes, so different hashes of those bytes, can be equal.) Shared with the engine through
/// `@_spi(Bytes)`; not part of the store API. Inlinable: the engine's warm lookup compares keys with it.
@_spi(Bytes) @inlinable public func sameBytes(_ first: String, _ second: String) -> Bool {
    let count = first.utf8.count
    guard second.utf8.count == count else { return false }
    if count == 0 { return true }
    let compared = first.utf8.withContiguousStorageIfAvailable { a in
        second.utf8.withContiguousStorageIfAvailable { b in memcmp(a.baseAddress!, b.baseAddress!, count) == 0 }
    }
    return (compared ?? nil) ?? first.utf8.elementsEqual(second.utf8)
}
