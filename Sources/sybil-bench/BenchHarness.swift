import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Each benchmark times the Sybil code and a baseline doing comparable work on the same bytes
// in the same run, best of several repetitions, and prints the ratio: these machines are
// noisy, so only ratios are compared across runs. Wall-clock time is right here: this is a
// benchmark, not a test of a rule.

/// `--smoke`: every case (but `server`) at a tiny size, once, so that CI notices a case that no
/// longer runs; its figures mean nothing.
let smoke = CommandLine.arguments.contains("--smoke")
/// What `--smoke` divides every benchmark's sizes by.
let smokeScale = 1_000
/// What each benchmark divides its sizes by: 1, or `smokeScale` under `--smoke`.
let benchScale = smoke ? smokeScale : 1

/// `size` divided by `benchScale`, but never below `minimum`: where each benchmark picks its sizes.
func scaled(_ size: Int, atLeast minimum: Int = 1) -> Int {
    max(minimum, size / benchScale)
}

let repetitions =
    smoke ? 1 : Int(ProcessInfo.processInfo.environment["SYBIL_BENCH_REPETITIONS"] ?? "") ?? 5
let clock = ContinuousClock()

/// How many cases failed; `sybil-bench` exits 1 when any did, so `--smoke` in CI notices.
let failedCases = Atomic<Int>(0)

/// Reports a case that could not run (one line) and counts it in `failedCases`.
func caseFailed(_ line: String) {
    print(line)
    failedCases.add(1, ordering: .relaxed)
}

func best(_ body: () -> Void) -> Double {
    var fastest = Double.infinity
    for _ in 0..<repetitions {
        let start = clock.now
        body()
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        fastest = min(fastest, seconds)
    }
    return fastest
}

func format(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// User and system processor time of the whole process so far (every thread), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}
