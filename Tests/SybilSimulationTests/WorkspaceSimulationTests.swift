import Foundation
import SybilTesting
import Testing

/// The workspace chat engine under a seeded faulty network, relaunches and manual clocks
/// (issue 16): every seed must keep each message exactly once and in order on the server,
/// nothing written lost, no bubble stuck sending, and the phone converging on the server's
/// history once the faults stop.
@MainActor
@Suite("Workspace simulation", .timeLimit(.minutes(3)))
struct WorkspaceSimulationTests {
    @Test func everySeedKeepsTheInvariants() async throws {
        let seeds = SimulationSeeds(defaultCount: 150).seeds
        var failures: [String] = []
        var totals = WorkspaceSimulation.Summary()
        for seed in seeds {
            do {
                let summary = try await WorkspaceSimulation(seed: seed).run()
                totals.steps += summary.steps
                totals.sends += summary.sends
                totals.relaunches += summary.relaunches
                totals.requests += summary.requests
                for (fault, count) in summary.faults { totals.faults[fault, default: 0] += count }
            } catch {
                failures.append(String(describing: error))
                if failures.count >= 5 { break }
            }
        }
        let faults = NetworkFault.allCases.map { "\($0.rawValue) \(totals.faults[$0] ?? 0)" }.joined(separator: ", ")
        print(
            "workspace simulation: \(seeds.count) seeds (\(seeds.first ?? 0)…\(seeds.last ?? 0)), \(totals.steps) steps, "
                + "\(totals.sends) sends, \(totals.relaunches) relaunches, \(totals.requests) requests (\(faults))")
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
    }
}
