#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output and standard error, written with `write(2)` until every byte is out.
enum StandardStream {
    case output
    case error

    private var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }

    /// Writes `text` whole. Output that cannot be written (a full disk, a closed descriptor) ends
    /// the program with the I/O error status and the reason on stderr, so that no output is lost
    /// silently; a failing stderr is ignored, there is nowhere left to report it.
    func send(_ text: String) {
        var text = text
        let failure: Int32? = text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        guard let failure, self == .output else { return }
        StandardStream.error.send("tokencache: cannot write to standard output: \(String(cString: strerror(failure)))\n")
        exit(Status.ioError)
    }
}
