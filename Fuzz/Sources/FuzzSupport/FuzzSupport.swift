import Foundation

// libFuzzer's driver, entered from each target's main.swift. SwiftPM renames an executable's `main`
// (and defines `main` as that), so libFuzzer's own `main` is never linked; `LLVMFuzzerRunDriver`
// does what it would do: parse libFuzzer's flags and run the loop.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

nonisolated(unsafe) private var currentTarget: ((Data) -> Void)?

/// libFuzzer's entry point. `-sanitize=fuzzer` links libFuzzer's whole archive, whose `main` refers to
/// it; that `main` is replaced by the target's own (see above), which registers the target first.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let target = currentTarget else { fatalError("fuzzMain was not called") }
    let data = if let bytes, count > 0 { Data(bytes: bytes, count: count) } else { Data() }
    target(data)
    return 0
}

/// Runs libFuzzer over `body`, which must return for every input (a crash, trap or hang is a finding).
public func fuzzMain(_ body: @escaping (Data) -> Void) -> Never {
    currentTarget = body
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    let status = runDriver(&argc, &argv, testOneInput)
    exit(status)
}
