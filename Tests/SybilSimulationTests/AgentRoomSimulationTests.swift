import Testing

/// The Agent room's outbox under a seeded faulty network and relaunches (issue 16): every seed
/// must keep each message exactly once and in order in the room, nothing written lost, no
/// entry stuck sending, and every entry confirmed once the faults stop.
@MainActor
@Suite("Agent room simulation", .timeLimit(.minutes(3)))
struct AgentRoomSimulationTests {
    @Test func everySeedKeepsTheInvariants() async {
        let sweep = await SimulationSweep(defaultCount: 100) { try await AgentRoomSimulation(seed: $0).run() }
        print(sweep.report("agent room simulation"))
        for failure in sweep.failures { Issue.record(Comment(rawValue: failure)) }
    }
}
