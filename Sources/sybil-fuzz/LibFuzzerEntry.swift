#if LIBFUZZER
    import Foundation
    import SybilFuzzTargets

    /// libFuzzer's driver, linked from the fuzzer runtime (`-sanitize=fuzzer`). Declared by its C
    /// name: the arguments are a pointer, a pointer and a C function pointer, which Swift passes
    /// as C does on the platforms the fuzzer runtime exists for (Linux x86_64 and arm64).
    @_silgen_name("LLVMFuzzerRunDriver")
    private func llvmFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The target this process fuzzes, from `SYBIL_FUZZ_TARGET`.
    private let selectedTarget = ProcessInfo.processInfo.environment["SYBIL_FUZZ_TARGET"].flatMap(FuzzTarget.init)

    /// Runs libFuzzer over the selected target.
    enum LibFuzzerEntry {
        static func run() -> Int32 {
            guard selectedTarget != nil else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
                FileHandle.standardError.write(Data("sybil-fuzz: set SYBIL_FUZZ_TARGET to one of \(names)\n".utf8))
                return 2
            }
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            return llvmFuzzerRunDriver(&argc, &argv) { data, size in
                let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
                do {
                    try selectedTarget?.run(bytes)
                } catch {
                    // A broken invariant is a finding like a crash: libFuzzer saves the input.
                    fatalError("invariant broken: \(error)")
                }
                return 0
            }
        }
    }
#endif
