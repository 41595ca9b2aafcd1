import Foundation

/// Which seeds a run covers: `SYBIL_SIM_SEED=S` replays one seed; otherwise
/// `SYBIL_SIM_SEEDS=N` seeds from `SYBIL_SIM_FROM=S` (defaults: `defaultCount` from 1).
struct SimulationSeeds: Sendable {
    /// The seeds, in order.
    let seeds: [UInt64]

    /// Seeds from the environment, `defaultCount` of them when it names none.
    init(environment: [String: String] = ProcessInfo.processInfo.environment, defaultCount: UInt64) {
        if let one = environment["SYBIL_SIM_SEED"].flatMap({ UInt64($0) }) {
            seeds = [one]
            return
        }
        let count = environment["SYBIL_SIM_SEEDS"].flatMap { UInt64($0) } ?? defaultCount
        let from = environment["SYBIL_SIM_FROM"].flatMap { UInt64($0) } ?? 1
        seeds = count == 0 ? [] : Array(from..<(from + count))
    }
}
