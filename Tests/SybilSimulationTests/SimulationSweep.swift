import Foundation

/// One simulation run for every seed the environment names (``SimulationSeeds``): the sum of
/// what the seeds did, and the reports of the first five that broke an invariant (each names
/// its seed and the line that replays it); the sweep stops at the fifth.
@MainActor
struct SimulationSweep<Summary: SimulationSummary> {
    /// The seeds the environment named.
    let seeds: [UInt64]
    /// What the seeds that kept the invariants did, summed.
    private(set) var totals = Summary()
    /// The reports of the seeds that broke an invariant.
    private(set) var failures: [String] = []

    /// Runs `simulate` for each seed, `defaultCount` seeds when `environment` names none.
    init(
        defaultCount: UInt64, environment: [String: String] = ProcessInfo.processInfo.environment,
        simulate: (UInt64) async throws -> Summary
    ) async {
        seeds = SimulationSeeds(environment: environment, defaultCount: defaultCount).seeds
        for seed in seeds {
            do {
                totals.add(try await simulate(seed))
            } catch {
                failures.append(String(describing: error))
                if failures.count >= 5 { break }
            }
        }
    }

    /// One line for the log: `name`, the seeds, the summed counts and the faults met.
    func report(_ name: String) -> String {
        let faults = NetworkFault.allCases.map { "\($0.rawValue) \(totals.faults[$0] ?? 0)" }.joined(separator: ", ")
        return "\(name): \(seeds.count) seeds (\(seeds.first ?? 0)…\(seeds.last ?? 0)), \(totals.steps) steps, "
            + "\(totals.ownCountsReport), \(totals.requests) requests (\(faults))"
    }
}
