import Testing

/// The workspace chat engine under a seeded faulty network, relaunches and manual clocks
/// (issue 16): every seed must keep each message exactly once and in order on the server,
/// nothing written lost, no bubble stuck sending, and the phone converging on the server's
/// history once the faults stop.
@MainActor
@Suite("Workspace simulation", .timeLimit(.minutes(3)))
struct WorkspaceSimulationTests {
    @Test func everySeedKeepsTheInvariants() async {
        let sweep = await SimulationSweep(defaultCount: 150) { try await WorkspaceSimulation(seed: $0).run() }
        print(sweep.report("workspace simulation"))
        for failure in sweep.failures { Issue.record(Comment(rawValue: failure)) }
    }
}
