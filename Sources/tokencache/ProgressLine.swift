#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A progress line on stderr, redrawn in place; only when stderr is a terminal and the work is long.
final class ProgressLine: @unchecked Sendable {
    private let enabled: Bool
    private let start = Date()
    private var last = Date.distantPast
    private var shown = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ message: String, done: Int, total: Int, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        // Only imports that take a while get a progress line, redrawn at most ten times a second.
        guard force ? shown || now.timeIntervalSince(start) > 0.5 : now.timeIntervalSince(start) > 0.5 && now.timeIntervalSince(last) > 0.1 else { return }
        last = now
        shown = true
        StandardStream.error.send("\r\u{1B}[K\(message)")
    }

    func finish() {
        guard shown else { return }
        StandardStream.error.send("\r\u{1B}[K")
    }
}
