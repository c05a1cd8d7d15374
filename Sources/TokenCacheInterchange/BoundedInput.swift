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
import PrivateFiles

/// Reads a stream (standard input, a pipe) as imports read a file: at most
/// ``ImportDecoder/sizeLimit`` bytes are ever held, and more is refused as soon as it arrives.
public enum BoundedInput {
    /// Everything `fd` delivers until its end, or ``InterchangeError/tooLarge(source:size:limit:)``
    /// once more than `limit` bytes came (`size` is then the bytes read so far, one past the limit).
    public static func readAll(_ fd: Int32, source: String, limit: Int = ImportDecoder.sizeLimit) throws(InterchangeError) -> Data {
        var data = Data()
        let chunk = 1 << 16
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = buffer.withUnsafeMutableBytes { readChunk(fd, $0.baseAddress!, chunk) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: source, reason: systemErrorText(errno))
            }
            if count == 0 { return data }
            guard data.count + count <= limit else {
                throw .tooLarge(source: source, size: data.count + count, limit: limit)
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}

private func readChunk(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
