import Foundation
import Testing
import TokenCacheInterchange

@Suite("Standard input is bounded like a file")
struct BoundedInputTests {
    /// A pipe fed by a thread with `count` bytes.
    static func pipe(feeding count: Int) -> Pipe {
        // The reader stops early on purpose: the writer must get EPIPE, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        Thread {
            let chunk = Data(repeating: 0x7B, count: 1 << 16)
            var left = count
            while left > 0 {
                let piece = chunk.prefix(min(left, chunk.count))
                do { try writer.write(contentsOf: piece) } catch { break }  // the reader stopped
                left -= piece.count
            }
            try? writer.close()
        }.start()
        return pipe
    }

    @Test func upToTheLimitIsRead() throws {
        let pipe = Self.pipe(feeding: 100_000)
        let data = try BoundedInput.readAll(pipe.fileHandleForReading.fileDescriptor, source: "stdin", limit: 100_000)
        #expect(data.count == 100_000)
    }

    @Test("one byte over the limit is refused as soon as it arrives, holding no more than the limit")
    func overTheLimitIsRefused() throws {
        let pipe = Self.pipe(feeding: 10_000_000)
        #expect {
            _ = try BoundedInput.readAll(pipe.fileHandleForReading.fileDescriptor, source: "stdin", limit: 200_000)
        } throws: { error in
            guard case InterchangeError.tooLarge(let source, let size, let limit) = error else { return false }
            return source == "stdin" && limit == 200_000 && size > limit && size <= limit + (1 << 16)
        }
        try pipe.fileHandleForReading.close()
    }
}
