import Foundation
import SybilFuzzTargets

/// `sybil-fuzz`: the fuzz targets' driver. Built normally it replays inputs (the corpus in the
/// repository, or given files) through the targets, so the corpus runs as a regression suite
/// without the fuzzer runtime. Built by `scripts/fuzz` with `-sanitize=fuzzer,address` and
/// `-DLIBFUZZER`, it hands its arguments to libFuzzer and fuzzes the target named by
/// `SYBIL_FUZZ_TARGET`.
@main
struct SybilFuzz {
    static func main() {
        #if LIBFUZZER
            exit(LibFuzzerEntry.run())
        #else
            exit(Replay.run(Array(CommandLine.arguments.dropFirst())))
        #endif
    }
}
