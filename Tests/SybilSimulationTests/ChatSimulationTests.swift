import Foundation
import SybilTesting
import Testing

/// Chats with resumable streams under a seeded faulty network and relaunches (issue 16): every
/// seed must keep every question saved once and in order, every complete reply exactly the
/// agent's (a resumed stream doubles and loses nothing), no reply left typing or streaming,
/// and the last question answered once the faults stop.
@MainActor
@Suite("Chat simulation", .timeLimit(.minutes(3)))
struct ChatSimulationTests {
    @Test func everySeedKeepsTheInvariants() async throws {
        let seeds = SimulationSeeds(defaultCount: 60).seeds
        var failures: [String] = []
        var totals = ChatSimulation.Summary()
        for seed in seeds {
            do {
                let summary = try await ChatSimulation(seed: seed).run()
                totals.steps += summary.steps
                totals.questions += summary.questions
                totals.retries += summary.retries
                totals.relaunches += summary.relaunches
                totals.completeReplies += summary.completeReplies
                totals.requests += summary.requests
                for (fault, count) in summary.faults { totals.faults[fault, default: 0] += count }
            } catch {
                failures.append(String(describing: error))
                if failures.count >= 5 { break }
            }
        }
        let faults = NetworkFault.allCases.map { "\($0.rawValue) \(totals.faults[$0] ?? 0)" }.joined(separator: ", ")
        print(
            "chat simulation: \(seeds.count) seeds (\(seeds.first ?? 0)…\(seeds.last ?? 0)), \(totals.steps) steps, "
                + "\(totals.questions) questions, \(totals.retries) retries, \(totals.relaunches) relaunches, "
                + "\(totals.completeReplies) complete replies, \(totals.requests) requests (\(faults))")
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
    }
}
