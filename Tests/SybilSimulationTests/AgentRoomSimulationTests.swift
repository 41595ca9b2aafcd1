import Foundation
import SybilTesting
import Testing

/// The Agent room's outbox under a seeded faulty network and relaunches (issue 16): every seed
/// must keep each message exactly once and in order in the room, nothing written lost, no
/// entry stuck sending, and every entry confirmed once the faults stop.
@MainActor
@Suite("Agent room simulation", .timeLimit(.minutes(3)))
struct AgentRoomSimulationTests {
    @Test func everySeedKeepsTheInvariants() async throws {
        let seeds = SimulationSeeds(defaultCount: 100).seeds
        var failures: [String] = []
        var totals = AgentRoomSimulation.Summary()
        for seed in seeds {
            do {
                let summary = try await AgentRoomSimulation(seed: seed).run()
                totals.steps += summary.steps
                totals.queued += summary.queued
                totals.relaunches += summary.relaunches
                totals.replays += summary.replays
                totals.requests += summary.requests
                for (fault, count) in summary.faults { totals.faults[fault, default: 0] += count }
            } catch {
                failures.append(String(describing: error))
                if failures.count >= 5 { break }
            }
        }
        let faults = NetworkFault.allCases.map { "\($0.rawValue) \(totals.faults[$0] ?? 0)" }.joined(separator: ", ")
        print(
            "agent room simulation: \(seeds.count) seeds (\(seeds.first ?? 0)…\(seeds.last ?? 0)), \(totals.steps) steps, "
                + "\(totals.queued) queued, \(totals.relaunches) relaunches, \(totals.replays) replays, "
                + "\(totals.requests) requests (\(faults))")
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
    }
}
